/** SQL of the privacy settings (privacy.tables.ts). */
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database.js';

/** The level the user chose, if they chose one. */
export async function findTrackingLevel(db: Kysely<Database>, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom('privacy_settings').select('tracking_level').where('user_id', '=', userId).executeTakeFirst();
  return row?.tracking_level;
}

/** Stores the user's level (insert or replace). */
export async function saveTrackingLevel(db: Kysely<Database>, userId: string, level: string, nowMs: number): Promise<void> {
  await db
    .insertInto('privacy_settings')
    .values({ user_id: userId, tracking_level: level, updated_at_ms: nowMs })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ tracking_level: level, updated_at_ms: nowMs }))
    .execute();
}

/** Every stored choice (the in-memory mirror of a database only this process writes; the retention agent). */
export async function listTrackingLevels(db: Kysely<Database>): Promise<Array<{ user_id: string; tracking_level: string }>> {
  return db.selectFrom('privacy_settings').select(['user_id', 'tracking_level']).execute();
}
