/**
 * The transaction demo seeding loads in (inBulkLoadTransaction), on SQLite files: with a
 * rollback journal when the seeding connection is alone on its file (the pages written once,
 * none through the WAL), in WAL as before when another connection holds it (without waiting
 * for it), the connection's settings back afterwards; the foreign-key check before the commit
 * skips only the tables the load checked itself.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { inBulkLoadTransaction } from '../../../server/platform/db/bulk-insert.js';
import { openSqlite, type DatabaseHandle } from '../../../server/platform/db/connection.js';
import { migrateToLatest } from '../../../server/platform/db/migrate.js';
import { seedDemo, seedDemoIfEmpty } from '../../../server/demo/demo.seed.js';
import { TEST_BACKEND } from '../../helpers/test-database.js';

const ANCHOR = Date.parse('2025-03-01T12:00:00.000Z');
const SMALL = { authors: 40, posts: 400, users: 150, interactions: 3000 };

const dirs: string[] = [];
const handles: DatabaseHandle[] = [];
const others: SQLite.Database[] = [];
afterEach(async () => {
  others.splice(0).forEach((other) => other.close());
  await Promise.all(handles.splice(0).map((h) => h.close()));
  dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));
});

async function fileDatabase(): Promise<{ database: DatabaseHandle; path: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'recsvc-bulk-load-'));
  dirs.push(dir);
  const path = join(dir, 'demo.db');
  const database = openSqlite(path);
  handles.push(database);
  await migrateToLatest(database.db);
  return { database, path };
}

/** The connection's settings the load changes for its duration. */
async function settings(database: DatabaseHandle) {
  const one = async (pragma: string) => Object.values((await sql.raw(`PRAGMA ${pragma}`).execute(database.db)).rows[0] as object)[0];
  return {
    journal: await one('journal_mode'),
    synchronous: await one('synchronous'),
    busy: await one('busy_timeout'),
    keys: await one('foreign_keys'),
    cache: await one('cache_size'),
  };
}

function walBytes(path: string): number {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}

async function count(database: DatabaseHandle, table: 'posts' | 'interactions'): Promise<number> {
  const row = await database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe.skipIf(TEST_BACKEND !== 'sqlite')('bulk-load transaction (SQLite files)', () => {
  it('seedDemo alone on its file writes through a rollback journal, then the connection is as it was', async () => {
    const { database, path } = await fileDatabase();
    const before = await settings(database);
    const walBefore = walBytes(path);
    await seedDemo(database, SMALL, ANCHOR);
    expect(await settings(database)).toEqual(before);
    expect(before.journal).toBe('wal');
    // Not one of the load's pages went through the WAL (it holds a few pages of the migrations at most).
    expect(walBytes(path)).toBeLessThanOrEqual(walBefore);
    expect(statSync(path).size).toBeGreaterThan(1_000_000);
    expect(await count(database, 'interactions')).toBe(3000);
  });

  it('keeps the WAL, without waiting, when another connection holds the file', async () => {
    const { database, path } = await fileDatabase();
    const other = new SQLite(path);
    others.push(other);
    other.prepare('SELECT count(*) FROM posts').get();
    const before = await settings(database);
    const started = Date.now();
    await seedDemo(database, SMALL, ANCHOR);
    // The busy timeout (5 s) is not spent on the attempt to leave the WAL.
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(await settings(database)).toEqual(before);
    expect(walBytes(path)).toBeGreaterThan(1_000_000);
    expect(other.prepare('SELECT count(*) AS n FROM interactions').get()).toEqual({ n: 3000 });
  });

  it('seedDemoIfEmpty (serve --demo, instances starting together) keeps the WAL', async () => {
    const { database, path } = await fileDatabase();
    await seedDemoIfEmpty(database, () => undefined, SMALL);
    expect(await count(database, 'posts')).toBe(400);
    expect(walBytes(path)).toBeGreaterThan(1_000_000);
    expect((await settings(database)).journal).toBe('wal');
  });

  it('checks foreign keys before the commit, skipping only the tables the load checked itself', async () => {
    const { database } = await fileDatabase();
    const orphan = (table: 'post_tags' | 'interactions') =>
      table === 'post_tags'
        ? sql`INSERT INTO post_tags (post_id, tag, sort_key) VALUES ('nope', 'tea', '1')`
        : sql`INSERT INTO interactions (id, user_id, post_id, action_type, created_at, created_at_ms) VALUES ('1', 'u', 'nope', 'favorite', 'x', 0)`;
    await expect(
      inBulkLoadTransaction(database.db, (trx) => orphan('post_tags').execute(trx), { foreignKeysChecked: ['interactions'] }),
    ).rejects.toThrow(/foreign keys broken by 1 row\(s\), the first in post_tags/);
    await expect(inBulkLoadTransaction(database.db, (trx) => orphan('interactions').execute(trx))).rejects.toThrow(
      /the first in interactions/,
    );
    expect(await count(database, 'interactions')).toBe(0);
    // What the caller vouches for is not checked again.
    await inBulkLoadTransaction(database.db, (trx) => orphan('interactions').execute(trx), { foreignKeysChecked: ['interactions'] });
    expect(await count(database, 'interactions')).toBe(1);
  });
});
