/**
 * Migration 0027's notifications: a change to the experiment tables committed by any process
 * on one PostgreSQL schema (another instance, `recsvc agents run experiment_gates`, psql)
 * reaches every handle's `onExperimentsChange` listeners (server/features.ts has the
 * experiments runtime forget its cache on each), and a change in another schema does not.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { createTestSchema, postgresUnavailable, suiteTitle, type TestSchema } from './postgres-test-database.js';

const unavailable = await postgresUnavailable();
const waitFor = (check: () => void) => vi.waitFor(check, { timeout: 10_000, interval: 20 });

describe.skipIf(unavailable !== undefined)(suiteTitle('experiment changes reach every instance', unavailable), () => {
  let schema: TestSchema;
  let other: TestSchema;
  let a: DatabaseHandle;
  let elsewhere: DatabaseHandle;
  let heard = 0;

  beforeAll(async () => {
    schema = await createTestSchema();
    other = await createTestSchema();
    for (const s of [schema, other]) {
      const setup = await openDatabase(s.url);
      await migrateToLatest(setup.db);
      await setup.close();
    }
    a = await openDatabase(schema.url);
    a.onExperimentsChange(() => (heard += 1));
    elsewhere = await openDatabase(other.url);
    // Listening: the (re)connection itself is reported once (changes may have been missed before).
    await waitFor(() => expect(heard).toBeGreaterThanOrEqual(1));
  }, 60_000);

  afterAll(async () => {
    await a?.close();
    await elsewhere?.close();
    await schema?.drop();
    await other?.drop();
  });

  it('an experiment created, a variant blocked and a period closed with plain SQL each reach the listener', async () => {
    const q = (text: string, values: unknown[] = []) => schema.admin.query(text.replaceAll('§', `"${schema.name}"`), values);
    let before = heard;
    await q(
      `INSERT INTO §.experiments (name, description, status, traffic_percentage, minimum_sample_size, confidence_level, primary_metric, created_at, updated_at)
       VALUES ('signal', '', 'running', 100, 100, 0.95, 'ctr', $1, $1)`,
      [new Date().toISOString()],
    );
    await waitFor(() => expect(heard).toBeGreaterThan(before));

    before = heard;
    await q(`UPDATE §.experiment_variants SET blocked = 1 WHERE experiment_id = -1`);
    await waitFor(() => expect(heard).toBeGreaterThan(before));

    before = heard;
    await q(`DELETE FROM §.experiment_active_periods WHERE experiment_id = -1`);
    await waitFor(() => expect(heard).toBeGreaterThan(before));
  });

  it('a change in another schema of the same database is not heard', async () => {
    const before = heard;
    await other.admin.query(`UPDATE "${other.name}".experiment_variants SET blocked = 1 WHERE experiment_id = -1`);
    // A change in this schema afterwards is heard: the other one, sent first, would have arrived before it.
    await schema.admin.query(`UPDATE "${schema.name}".experiments SET status = status WHERE false`);
    await waitFor(() => expect(heard).toBe(before + 1));
  });
});
