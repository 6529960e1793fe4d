/**
 * Instances starting at the same moment on one PostgreSQL schema: the one-time conversion
 * of stored ids to pseudonyms (server/experiments/events/privacy-backfill.ts) runs in each instance's
 * start, and must run once — the others wait for it and find it done — instead of failing a
 * start on the bookkeeping row's unique key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pseudonymiseStoredIds } from '../../server/experiments/events/privacy-backfill.js';
import { openDatabase, type DatabaseHandle } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { createTestSchema, postgresUnavailable, suiteTitle, type TestSchema } from '../postgres/postgres-test-database.js';

const unavailable = await postgresUnavailable();
const INSTANCES = 4;

describe.skipIf(unavailable !== undefined)(suiteTitle('instances starting together on one schema', unavailable), () => {
  let schema: TestSchema;
  const handles: DatabaseHandle[] = [];

  beforeAll(async () => {
    schema = await createTestSchema();
    for (let i = 0; i < INSTANCES; i += 1) handles.push(await openDatabase(schema.url));
    await Promise.all(handles.map((handle) => migrateToLatest(handle.db)));
  });

  afterAll(async () => {
    for (const handle of handles) await handle.close();
    await schema?.drop();
  });

  it('converts stored ids to pseudonyms once, however many instances start at once', async () => {
    const privacy = { pseudonym: (userId: string) => `p:${userId}` };
    const ran = await Promise.all(handles.map((handle) => pseudonymiseStoredIds(handle.db, privacy)));
    expect(ran.filter(Boolean)).toHaveLength(1);
    const rows = await handles[0]!.db.selectFrom('privacy_backfills').select('name').execute();
    expect(rows).toHaveLength(1);
  });
});
