/**
 * Two instances on one PostgreSQL database: a tracking level chosen, changed or erased through
 * one reaches the other's privacy policy through migration 0026's notification (no restart),
 * its level listeners are told, and a change made with plain SQL (another tool) counts too.
 * Without the notification the second instance would keep its cached level until it restarted.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TrackingLevel } from '../../src/privacy/tracking-level.js';
import { openDatabase, type DatabaseHandle } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { createPrivacyPolicy, type PrivacyPolicyService } from '../../server/privacy/privacy.feature.js';
import { createTestSchema, postgresUnavailable, suiteTitle, type TestSchema } from './postgres-test-database.js';

const unavailable = await postgresUnavailable();
const KEY = 'ab'.repeat(32);
const waitFor = (check: () => void) => vi.waitFor(check, { timeout: 10_000, interval: 20 });

interface Instance {
  database: DatabaseHandle;
  policy: PrivacyPolicyService;
  heard: Array<[string, TrackingLevel]>;
}

async function instance(url: string): Promise<Instance> {
  const database = await openDatabase(url);
  const policy = await createPrivacyPolicy(database.db, { pseudonymKey: KEY, defaultLevel: 'limited' });
  const heard: Array<[string, TrackingLevel]> = [];
  policy.onLevelChange((userId, level) => heard.push([userId, level]));
  // As server/app.ts wires it.
  database.onPrivacyRowChange((userId) => void policy.outsideChange(userId));
  return { database, policy, heard };
}

describe.skipIf(unavailable !== undefined)(suiteTitle('privacy levels across instances', unavailable), () => {
  let schema: TestSchema;
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    schema = await createTestSchema();
    const setup = await openDatabase(schema.url);
    await migrateToLatest(setup.db);
    await setup.close();
    a = await instance(schema.url);
    b = await instance(schema.url);
  });

  afterAll(async () => {
    try {
      await a?.database.close();
      await b?.database.close();
    } finally {
      await schema?.drop();
    }
  });

  it('a level chosen on A applies on B at once, and B tells its listeners', async () => {
    // B has the default cached before the change.
    expect(b.policy.levelOf('alice@social.example')).toBe('limited');
    await a.policy.setLevel('alice@social.example', 'none');
    await waitFor(() => expect(b.policy.levelOf('alice@social.example')).toBe('none'));
    expect(b.heard).toContainEqual(['alice@social.example', 'none']);
    await a.policy.setLevel('alice@social.example', 'full');
    await waitFor(() => expect(b.policy.levelOf('alice@social.example')).toBe('full'));
  });

  it('an erased row (back to the default) and a change made with plain SQL reach the other instance too', async () => {
    await b.policy.setLevel('bob@social.example', 'full');
    await waitFor(() => expect(a.policy.levelOf('bob@social.example')).toBe('full'));
    await schema.admin.query(`DELETE FROM ${schema.name}.privacy_settings WHERE user_id = $1`, ['bob@social.example']);
    await waitFor(() => expect(a.policy.levelOf('bob@social.example')).toBe('limited'));
    await waitFor(() => expect(b.policy.levelOf('bob@social.example')).toBe('limited'));
    await schema.admin.query(`UPDATE ${schema.name}.privacy_settings SET tracking_level = 'limited' WHERE user_id = $1`, [
      'alice@social.example',
    ]);
    await waitFor(() => expect(a.policy.levelOf('alice@social.example')).toBe('limited'));
    await waitFor(() => expect(b.policy.levelOf('alice@social.example')).toBe('limited'));
  });
});
