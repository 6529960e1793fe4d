/** SQLite housekeeping (dialect-specific; PostgreSQL would VACUUM/ANALYZE instead). */
import { sql, type Kysely } from 'kysely';

/** Checkpoints the WAL so it cannot grow without bound, and refreshes planner statistics. */
export async function runStorageMaintenance(db: Kysely<any>): Promise<void> {
  await sql`PRAGMA wal_checkpoint(PASSIVE)`.execute(db);
  await sql`PRAGMA optimize`.execute(db);
}
