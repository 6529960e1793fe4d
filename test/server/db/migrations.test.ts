import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openSqlite } from '../../../server/platform/db/connection.js';
import { migrateToLatest } from '../../../server/platform/db/migrate.js';
import { MIGRATIONS } from '../../../server/platform/db/migrations/index.js';

const migrator = (db: Kysely<any>): Migrator => new Migrator({ db, provider: { getMigrations: async () => ({ ...MIGRATIONS }) } });

async function tableSql(db: Kysely<any>, name: string): Promise<string> {
  const row = await db.selectFrom('sqlite_master').select('sql').where('name', '=', name).executeTakeFirstOrThrow();
  return String(row.sql);
}

describe('migration 0013: affinities clustered by their primary key', () => {
  it('keeps every affinity, keeps the key unique, and migrates down again', async () => {
    const { db, close } = openSqlite(':memory:');
    expect((await migrator(db).migrateTo('0012-interactions-drop-user-index')).error).toBeUndefined();
    const rows = [
      { user_id: 'u1', kind: 'author', target: 'a1', score: 1.5, as_of_ms: 1000 },
      { user_id: 'u1', kind: 'tag', target: 'birds', score: -2, as_of_ms: 2000 },
      { user_id: 'u2', kind: 'author', target: 'a1', score: 0.25, as_of_ms: 3000 },
    ];
    await db.insertInto('user_affinities').values(rows).execute();
    expect(await tableSql(db, 'user_affinities')).not.toMatch(/WITHOUT ROWID/i);

    expect(await migrateToLatest(db)).toContain('0013-affinities-clustered');
    expect(await tableSql(db, 'user_affinities')).toMatch(/WITHOUT ROWID/i);
    const after = await db.selectFrom('user_affinities').selectAll().orderBy('user_id').orderBy('kind').execute();
    expect(after).toEqual(rows);
    await expect(db.insertInto('user_affinities').values(rows[0]!).execute()).rejects.toThrow(/UNIQUE|PRIMARY KEY/);

    expect((await migrator(db).migrateTo('0012-interactions-drop-user-index')).error).toBeUndefined();
    expect(await tableSql(db, 'user_affinities')).not.toMatch(/WITHOUT ROWID/i);
    expect(await db.selectFrom('user_affinities').selectAll().orderBy('user_id').orderBy('kind').execute()).toEqual(rows);
    await close();
  });
});

describe('migration 0014: analytics events judged by the rules that now decide whether they count', () => {
  const HOUR = 3_600_000;
  const impressions = [
    { user_id: 'u1', post_id: 'p1', served_at_ms: 1000 },
    { user_id: 'u1', post_id: 'p1', served_at_ms: 2000 },
    { user_id: 'u1', post_id: 'p2', served_at_ms: 5000 },
    { user_id: 'u2', post_id: 'p3', served_at_ms: 1000 },
  ];
  // [type, user, post, session, occurred, received, expected reason (null: accepted), claimed impression (1-based)]
  const events: [string, string, string | null, string | null, number, number, string | null, number | null][] = [
    ['click', 'u1', 'p1', null, 2500, 2500, null, 1],
    ['click', 'u1', 'p1', null, 2600, 2600, null, 2],
    ['click', 'u1', 'p1', null, 2700, 2700, 'duplicate_click', null],
    ['click', 'u1', 'p9', null, 2700, 2700, 'no_impression', null],
    ['view', 'u1', 'p2', null, 6000, 6000, null, 3],
    ['click', 'u1', 'p2', null, 4000, 4000, 'no_impression', null], // clicked before p2 was served
    ['click', 'u2', 'p3', null, 10 * HOUR, 2000, 'timestamp_out_of_window', null],
    ['session_start', 'u1', null, 's1', 100 * HOUR, 100 * HOUR, null, null],
    ['session_start', 'u1', null, 's1', 99 * HOUR, 100 * HOUR, 'duplicate_session_start', null],
    ['session_end', 'u1', null, 's1', 100 * HOUR + 60_000, 100 * HOUR + 60_000, null, null],
    ['session_end', 'u1', null, 's1', 101 * HOUR, 101 * HOUR, 'duplicate_session_end', null],
    ['session_start', 'u1', null, 's2', 200 * HOUR, 200 * HOUR, null, null],
    ['session_end', 'u1', null, 's2', 213 * HOUR, 213 * HOUR, 'session_too_long', null],
    ['session_start', 'u1', null, 's3', 300 * HOUR, 300 * HOUR, null, null],
    ['session_end', 'u1', null, 's3', 299 * HOUR, 299 * HOUR, 'session_ends_before_start', null],
    ['session_start', 'u1', null, 's4', 400 * HOUR, 400 * HOUR - 25 * HOUR, 'timestamp_out_of_window', null],
  ];

  it('refuses what could not be true, links each kept click or view to one impression, and migrates down again', async () => {
    const { db, close } = openSqlite(':memory:');
    expect((await migrator(db).migrateTo('0013-affinities-clustered')).error).toBeUndefined();
    await db
      .insertInto('experiment_impressions')
      .values(impressions.map((i) => ({ ...i, experiment_id: 1, variant: 'A', score: 0.5, reason_code: 'HIGH_ENGAGEMENT' })))
      .execute();
    const impressionIds = (await db.selectFrom('experiment_impressions').select('id').orderBy('id').execute()).map((r) => r.id);
    const rows = events.map(([type, user_id, post_id, session_id, occurred_at_ms, received_at_ms]) => ({
      type,
      user_id,
      post_id,
      session_id,
      occurred_at_ms,
      received_at_ms,
    }));
    await db.insertInto('analytics_events').values(rows).execute();

    expect((await migrateToLatest(db))[0]).toBe('0014-analytics-event-verdicts');
    const after = await db.selectFrom('analytics_events').selectAll().orderBy('id').execute();
    expect(after.map((r) => r.rejected_reason)).toEqual(events.map((e) => e[6]));
    expect(after.map((r) => r.impression_id)).toEqual(events.map((e) => (e[7] === null ? null : impressionIds[e[7] - 1])));
    expect(after.map(({ impression_id: _i, rejected_reason: _r, id: _id, ...rest }) => rest)).toEqual(rows);

    // The database now holds the rules itself: one click per impression, one accepted start per session.
    await expect(
      db
        .insertInto('analytics_events')
        .values({ ...rows[0]!, impression_id: impressionIds[0] })
        .execute(),
    ).rejects.toThrow(/UNIQUE/);
    await expect(db.insertInto('analytics_events').values(rows[7]!).execute()).rejects.toThrow(/UNIQUE/);
    await db
      .insertInto('analytics_events')
      .values({ ...rows[7]!, rejected_reason: 'duplicate_session_start' })
      .execute();

    expect((await migrator(db).migrateTo('0013-affinities-clustered')).error).toBeUndefined();
    const down = await db.selectFrom('analytics_events').selectAll().orderBy('id').execute();
    expect(down.slice(0, rows.length).map(({ id: _id, ...rest }) => rest)).toEqual(rows);
    await close();
  });
});

describe('migration 0015: stored interest vectors', () => {
  it('adds user_interests (one row per user, weights as bytes) and migrates down again', async () => {
    const { db, close } = openSqlite(':memory:');
    expect((await migrator(db).migrateTo('0014-analytics-event-verdicts')).error).toBeUndefined();
    expect(await migrateToLatest(db)).toContain('0015-user-interests');
    const weights = new Uint8Array(new Float64Array([0.5, -1.25]).buffer);
    await db.insertInto('user_interests').values({ user_id: 'u1', ref_ms: 1, latest_ms: 2, terms: '["a","#b"]', weights }).execute();
    const row = await db.selectFrom('user_interests').selectAll().executeTakeFirstOrThrow();
    expect(Buffer.from(row.weights).equals(Buffer.from(weights))).toBe(true);
    await expect(
      db.insertInto('user_interests').values({ user_id: 'u1', ref_ms: 1, latest_ms: 2, terms: '[]', weights }).execute(),
    ).rejects.toThrow(/UNIQUE|PRIMARY/);
    expect((await migrator(db).migrateTo('0014-analytics-event-verdicts')).error).toBeUndefined();
    await expect(db.selectFrom('user_interests').selectAll().execute()).rejects.toThrow(/no such table/);
    await close();
  });
});

describe('several processes migrating one new SQLite file at once', () => {
  it('each migration is applied once and every process succeeds (the run holds the write lock)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'recsvc-migrate-')), 'together.db');
    const script = `
      const { openSqlite } = await import(${JSON.stringify(new URL('../../../dist/server/platform/db/connection.js', import.meta.url).href)});
      const { migrateToLatest } = await import(${JSON.stringify(new URL('../../../dist/server/platform/db/migrate.js', import.meta.url).href)});
      const handle = openSqlite(${JSON.stringify(file)});
      const applied = await migrateToLatest(handle.db);
      await handle.close();
      console.log(applied.length);`;
    const runs = await Promise.all(
      [0, 1, 2, 3].map(
        () =>
          new Promise<{ code: number | null; out: string }>((resolve) => {
            execFile(process.execPath, ['--input-type=module', '-e', script], (error, stdout, stderr) =>
              resolve({ code: error ? (error.code as number) : 0, out: `${stdout}${stderr}` }),
            );
          }),
      ),
    );
    expect(runs.map((run) => run.code)).toEqual([0, 0, 0, 0]);
    const counts = runs.map((run) => Number(run.out.trim())).sort((a, b) => b - a);
    expect(counts).toEqual([Object.keys(MIGRATIONS).length, 0, 0, 0]);
  });
});
