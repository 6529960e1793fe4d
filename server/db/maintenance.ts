/**
 * Storage housekeeping, per dialect: SQLite checkpoints its WAL and refreshes its planner
 * statistics here; PostgreSQL's autovacuum already does both (vacuum and analyze) on its
 * own schedule, so there is nothing to run.
 */
import { SqliteAdapter, sql, type Kysely } from 'kysely';

/** Checkpoints the WAL so it cannot grow without bound, and refreshes planner statistics (SQLite). */
export async function runStorageMaintenance(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await sql`PRAGMA wal_checkpoint(PASSIVE)`.execute(db);
  await sql`PRAGMA optimize`.execute(db);
}
