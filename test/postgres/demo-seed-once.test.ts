/**
 * `serve --demo` on several instances starting together on one empty PostgreSQL schema:
 * the demo data set is written once (the seeding's transaction lock), the other instances
 * wait for it and then find its posts, and none fails on a duplicate key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { seedDemoIfEmpty } from '../../server/demo/demo.seed.js';
import { createTestSchema, postgresUnavailable, suiteTitle, type TestSchema } from './postgres-test-database.js';

const unavailable = await postgresUnavailable();
const SMALL = { authors: 20, posts: 200, users: 60, interactions: 1500 };

describe.skipIf(unavailable !== undefined)(suiteTitle('demo data seeded once by instances starting together', unavailable), () => {
  let schema: TestSchema;
  const handles: DatabaseHandle[] = [];

  beforeAll(async () => {
    schema = await createTestSchema();
    for (let i = 0; i < 3; i++) handles.push(await openDatabase(schema.url));
    await migrateToLatest(handles[0]!.db);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(handles.map((handle) => handle.close()));
    await schema?.drop();
  });

  it('three instances seeding at once write one data set; the others log that there was nothing to seed', async () => {
    const logs = handles.map(() => [] as string[]);
    const results = await Promise.allSettled(handles.map((handle, i) => seedDemoIfEmpty(handle, (line) => logs[i]!.push(line), SMALL)));
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    const seeded = logs.filter((lines) => lines.some((line) => line.startsWith('demo data: 200 posts')));
    const skipped = logs.filter((lines) => lines.some((line) => line.includes('nothing seeded')));
    expect([seeded.length, skipped.length]).toEqual([1, 2]);
    const counts = await schema.admin.query<{ posts: string; interactions: string }>(
      `SELECT (SELECT count(*) FROM "${schema.name}".posts) AS posts, (SELECT count(*) FROM "${schema.name}".interactions) AS interactions`,
    );
    expect(counts.rows[0]).toEqual({ posts: '200', interactions: '1500' });
  });
});
