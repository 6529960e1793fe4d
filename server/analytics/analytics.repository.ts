/** SQL for client analytics events. */
import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { AnalyticsEventsTable } from './analytics.tables.js';

/** Stores a batch of events (in the caller's transaction). */
export async function insertEvents(db: Kysely<Database>, rows: Insertable<AnalyticsEventsTable>[]): Promise<void> {
  // 6 columns per row: 500 rows stay well under SQLite's bound-parameter limit.
  for (let i = 0; i < rows.length; i += 500) {
    await db.insertInto('analytics_events').values(rows.slice(i, i + 500)).execute();
  }
}
