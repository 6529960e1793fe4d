/**
 * Storage housekeeping, per dialect: SQLite checkpoints its WAL and refreshes its planner
 * statistics here; PostgreSQL's autovacuum already does both (vacuum and analyze) on its
 * own schedule, so there is nothing to run. After an erasure, SQLite's file is rewritten and
 * its WAL emptied so that no copy of the erased rows stays in either (scrubDeletedData).
 */
import { SqliteAdapter, sql, type Kysely } from 'kysely';

/** Checkpoints the WAL so it cannot grow without bound, and refreshes planner statistics (SQLite). */
export async function runStorageMaintenance(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await sql`PRAGMA wal_checkpoint(PASSIVE)`.execute(db);
  await sql`PRAGMA optimize`.execute(db);
}

/**
 * After rows were deleted for good (an erasure), leaves none of their bytes in the database
 * files. SQLite: deleted content is overwritten with zeros (secure_delete, set on every
 * connection), but copies of cells that SQLite left in a page's free space when it
 * reorganised the page earlier, and earlier copies of pages in the WAL, remain; VACUUM
 * rewrites the file from the live rows only, and a TRUNCATE checkpoint then empties the WAL.
 * VACUUM takes time in proportion to the file and holds the database meanwhile
 * (docs/operations.md). PostgreSQL: dead rows are reclaimed by (auto)vacuum; nothing is run.
 */
export async function scrubDeletedData(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await sql`VACUUM`.execute(db);
  await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
}
