/** SQL of the privacy settings (the table is privacy.tables.ts's, seen through `withTables`). */
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database.js';
import type { PrivacyTables } from './privacy.tables.js';

/** The database with the privacy tables in its type (server/platform/db/database.ts need not know them). */
export function privacyDb(db: Kysely<Database>): Kysely<Database & PrivacyTables> {
  return db.withTables<PrivacyTables>();
}

/** The level the user chose, if they chose one. */
export async function findTrackingLevel(db: Kysely<Database>, userId: string): Promise<string | undefined> {
  const row = await privacyDb(db).selectFrom('privacy_settings').select('tracking_level').where('user_id', '=', userId).executeTakeFirst();
  return row?.tracking_level;
}

/** Stores the user's level (insert or replace). */
export async function saveTrackingLevel(db: Kysely<Database>, userId: string, level: string, nowMs: number): Promise<void> {
  await privacyDb(db)
    .insertInto('privacy_settings')
    .values({ user_id: userId, tracking_level: level, updated_at_ms: nowMs })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ tracking_level: level, updated_at_ms: nowMs }))
    .execute();
}

/** Every stored choice (the in-memory mirror of a database only this process writes; the retention agent). */
export async function listTrackingLevels(db: Kysely<Database>): Promise<Array<{ user_id: string; tracking_level: string }>> {
  return privacyDb(db).selectFrom('privacy_settings').select(['user_id', 'tracking_level']).execute();
}
