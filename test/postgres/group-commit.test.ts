/**
 * Group commit (server/platform/db/batched-transactions.ts) on PostgreSQL: nothing is acknowledged
 * that is not committed. A unit that catches the error of one of its statements leaves
 * PostgreSQL's transaction aborted, and a COMMIT then silently rolls back: such a unit must
 * fail, alone, whether it was alone in its batch or among others. And through the real app,
 * a burst of concurrent interactions (new, repeated, and on a missing post) is committed
 * when each answer arrives: another connection sees every 201 at once, and nothing else.
 *
 * The other two write-path helpers of server/platform/db need no PostgreSQL test of their own:
 * statement-cache.ts wraps only better-sqlite3 (the pg pool never sees it), and
 * precompiled-query.ts compiles through the active dialect's adapter (its templates run on
 * every PostgreSQL request of this burst and of app-parity.test.ts).
 */
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { createToken } from '../../server/platform/auth/token.service.js';
import { BatchedTransactionRunner } from '../../server/platform/db/batched-transactions.js';
import { openDatabase, type DatabaseHandle } from '../../server/platform/db/connection.js';
import type { Database } from '../../server/platform/db/database.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { statusRows } from '../../server/posts/post.mapper.js';
import { createPrivacyPolicy } from '../../server/privacy/privacy.feature.js';
import { makeStatus, postId } from '../helpers/mastodon-fixtures.js';
import { createTestSchema, postgresUnavailable, suiteTitle, type TestSchema } from './postgres-test-database.js';

const unavailable = await postgresUnavailable();

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const POSTS = 5;
const ACTIONS = ['favorite', 'reblog', 'bookmark'] as const;
const COUNTERS = 'SELECT sum(favourites_count + reblogs_count + bookmarks_count) AS n FROM {s}.posts';

/** Inserts `id` into the probe table, then (when `swallow`) a duplicate whose error it catches. */
function probeUnit(id: number, swallow: boolean) {
  return async (trx: Kysely<Database>): Promise<number> => {
    await sql`INSERT INTO batch_probe (id) VALUES (${id})`.execute(trx);
    if (swallow) await sql`INSERT INTO batch_probe (id) VALUES (${id})`.execute(trx).catch(() => undefined);
    return id;
  };
}

describe.skipIf(unavailable !== undefined)(suiteTitle('group commit acknowledges only what is committed', unavailable), () => {
  let schema: TestSchema;
  let database: DatabaseHandle;

  /** What another connection sees committed in the test schema. */
  const committed = async (query: string, values: unknown[] = []): Promise<number> => {
    const { rows } = await schema.admin.query<{ n: string }>(query.replaceAll('{s}', schema.name), values);
    return Number(rows[0]?.n ?? 0);
  };

  beforeAll(async () => {
    schema = await createTestSchema();
    database = await openDatabase(schema.url);
    await migrateToLatest(database.db);
    await sql`CREATE TABLE batch_probe (id integer PRIMARY KEY)`.execute(database.db);
  }, 60_000);

  afterAll(async () => {
    await database?.close();
    await schema?.drop();
  });

  it('a lone unit that caught a failed statement fails, instead of being acknowledged by a COMMIT that rolled back', async () => {
    const runner = new BatchedTransactionRunner(database.db);
    await expect(runner.run(probeUnit(1, true))).rejects.toThrow(/rolled back/);
    expect(await committed('SELECT count(*) AS n FROM {s}.batch_probe WHERE id = 1')).toBe(0);
    await expect(runner.run(probeUnit(2, false))).resolves.toBe(2);
    expect(await committed('SELECT count(*) AS n FROM {s}.batch_probe WHERE id = 2')).toBe(1);
  });

  it('in a batch, such a unit fails alone and the others commit', async () => {
    const runner = new BatchedTransactionRunner(database.db);
    const outcomes = await Promise.allSettled([
      runner.run(probeUnit(10, false)),
      runner.run(probeUnit(11, true)),
      runner.run(probeUnit(12, false)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const { rows } = await schema.admin.query<{ id: number }>(`SELECT id FROM ${schema.name}.batch_probe WHERE id >= 10 ORDER BY id`);
    expect(rows.map((row) => row.id)).toEqual([10, 12]);
  });

  it('a burst of concurrent interactions through the app: every 201 is committed when it arrives, nothing else is', async () => {
    for (let n = 1; n <= POSTS; n += 1) {
      const rows = statusRows(makeStatus({ n, author: `author${n}`, nowMs: T0 }), T0, true);
      for (const account of rows.accounts)
        await database.db
          .insertInto('accounts')
          .values(account)
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
      for (const post of rows.posts) await database.db.insertInto('posts').values(post.row).execute();
    }
    const countersBefore = await committed(COUNTERS);
    const privacy = await createPrivacyPolicy(database.db, { pseudonymKey: '33'.repeat(32) });
    const app = await buildApp({ database, privacy, rateLimit: null });
    try {
      await app.ready();
      const users = Array.from({ length: 8 }, (_, i) => `burst${i}`);
      const headers = new Map<string, Record<string, string>>();
      for (const user of users) {
        const { token } = await createToken(database.db, {
          scopes: ['read', 'write'],
          tier: 'authenticated',
          userId: user,
          ttlSeconds: 600,
        });
        headers.set(user, { authorization: `Bearer ${token}` });
      }
      // Every (user, post, action) twice, plus one interaction per user on a post that does not exist.
      const requests = users.flatMap((user, u) => [
        ...[0, 1].flatMap(() =>
          Array.from({ length: 3 }, (_, k) => ({ user, post: postId(1 + ((u + k) % POSTS)), action: ACTIONS[(u + k) % 3]! })),
        ),
        { user, post: '999', action: 'favorite' as const },
      ]);
      const seen: { status: number; visible: number }[] = await Promise.all(
        requests.map(async ({ user, post, action }) => {
          const res = await app.inject({
            method: 'POST',
            url: '/api/v1/interactions',
            headers: headers.get(user)!,
            payload: { user_id: user, post_id: post, action_type: action },
          });
          // At the moment of the answer, from another connection.
          const visible = await committed(
            'SELECT count(*) AS n FROM {s}.interactions WHERE user_id = $1 AND post_id = $2 AND action_type = $3',
            [user, post, action],
          );
          return { status: res.statusCode, visible };
        }),
      );
      const created = seen.filter((s) => s.status === 201);
      expect(created).toHaveLength(users.length * 3);
      expect(created.every((s) => s.visible === 1)).toBe(true);
      expect(seen.filter((s) => s.status === 200).every((s) => s.visible === 1)).toBe(true);
      expect(seen.filter((s) => s.status === 404)).toEqual(users.map(() => ({ status: 404, visible: 0 })));
      expect(seen.every((s) => [200, 201, 404].includes(s.status))).toBe(true);
      expect(await committed(`SELECT count(*) AS n FROM {s}.interactions WHERE user_id LIKE 'burst%'`)).toBe(users.length * 3);
      // The counters moved once per new interaction, in the same commits.
      expect(await committed(COUNTERS)).toBe(countersBefore + created.length);
    } finally {
      await app.close();
    }
  });
});
