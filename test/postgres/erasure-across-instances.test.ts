/**
 * An erasure on one instance and a request of the same user still running on another (two
 * instances on one PostgreSQL schema, as two `recsvc serve` processes): the erasing instance
 * cannot wait for the other's requests, so the other, told by migration 0026's notification
 * that the user is at `none`, waits for its own requests that began before and deletes what
 * they wrote after the erasure's delete (followOutsideLevelChanges, wired by the privacy feature).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { InFlightRequests } from '../../server/privacy/in-flight-requests.js';
import { followOutsideLevelChanges, PrivacyErasureService } from '../../server/privacy/privacy-erasure.service.js';
import type { PrivacyPolicyService } from '../../server/privacy/privacy-policy.service.js';
import { createPrivacyPolicy } from '../../server/privacy/privacy.feature.js';
import { createTestSchema, postgresUnavailable, suiteTitle, type TestSchema } from './postgres-test-database.js';

const unavailable = await postgresUnavailable();
const KEY = 'cd'.repeat(32);
const waitFor = (check: () => Promise<void> | void) => vi.waitFor(check, { timeout: 10_000, interval: 25 });

interface Instance {
  database: DatabaseHandle;
  policy: PrivacyPolicyService;
  inFlight: InFlightRequests;
  erasure: PrivacyErasureService;
  errors: unknown[];
}

async function instance(url: string, follow: boolean): Promise<Instance> {
  const database = await openDatabase(url);
  const policy = await createPrivacyPolicy(database.db, { pseudonymKey: KEY, defaultLevel: 'limited' });
  const inFlight = new InFlightRequests();
  const erasure = new PrivacyErasureService({
    db: database.db,
    policy,
    inFlight,
    ranking: { userErased: () => undefined },
    tokenCaches: [],
  });
  const errors: unknown[] = [];
  // As server/app.ts and the privacy feature wire them.
  database.onPrivacyRowChange((userId) => void policy.outsideChange(userId));
  if (follow) followOutsideLevelChanges(policy, erasure, (error) => errors.push(error));
  return { database, policy, inFlight, erasure, errors };
}

describe.skipIf(unavailable !== undefined)(suiteTitle('an erasure and a request running on another instance', unavailable), () => {
  let schema: TestSchema;
  const instances: Instance[] = [];

  beforeAll(async () => {
    schema = await createTestSchema();
    const setup = await openDatabase(schema.url);
    await migrateToLatest(setup.db);
    await setup.close();
  }, 60_000);

  afterAll(async () => {
    try {
      for (const i of instances) await i.database.close();
    } finally {
      await schema?.drop();
    }
  });

  const affinities = async (userId: string): Promise<number> =>
    Number(
      (await schema.admin.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema.name}".user_affinities WHERE user_id = $1`, [userId]))
        .rows[0]!.n,
    );
  const lateWrite = (b: Instance, userId: string) =>
    b.database.db
      .insertInto('user_affinities')
      .values({ user_id: userId, kind: 'tag', target: 'late', score: 1, as_of_ms: Date.now() })
      .execute();

  async function scenario(follow: boolean, userId: string): Promise<{ a: Instance; b: Instance }> {
    // A, the erasing instance, does not follow here: in a deployment it does, and its own writes'
    // notifications are recognised as its own, but one that reads the row already gone could run
    // A's (harmless) follow-up too and mask B's part in the second test.
    const a = await instance(schema.url, false);
    const b = await instance(schema.url, follow);
    instances.push(a, b);
    await a.database.db
      .insertInto('user_affinities')
      .values({ user_id: userId, kind: 'tag', target: 'early', score: 1, as_of_ms: 1 })
      .execute();
    // A request of the user on B began before the erasure; it writes after A's delete, then ends.
    const end = b.inFlight.begin(userId, false);
    const report = await a.erasure.eraseUser(userId);
    expect(report.deleted.user_affinities).toBe(1);
    expect(report.deleted.privacy_settings).toBeUndefined();
    await lateWrite(b, userId);
    expect(await affinities(userId)).toBe(1);
    end();
    return { a, b };
  }

  /** Each test's instances stop listening at its end (a follower left running would act on the next test's users). */
  async function closeAll(): Promise<void> {
    for (const i of instances.splice(0)) await i.database.close();
  }

  it("B deletes what its request wrote after A's erasure, once that request ended", async () => {
    try {
      const { b } = await scenario(true, 'erased@one.example');
      await waitFor(async () => expect(await affinities('erased@one.example')).toBe(0));
      expect(b.errors).toEqual([]);
      // The erasure is over: the user is back at the default level.
      await waitFor(() => expect(b.policy.levelOf('erased@one.example')).toBe('limited'));
    } finally {
      await closeAll();
    }
  });

  it('without the follow-up, the late write would stay (what the follow-up is for)', async () => {
    try {
      await scenario(false, 'erased@two.example');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await affinities('erased@two.example')).toBe(1);
    } finally {
      await closeAll();
    }
  });
});
