/** SQL for feedback and explicit preferences. */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../db/database.js';
import type { FeedbackTable, UserPreferencesTable } from './recommendations.tables.js';

export type FeedbackRow = Selectable<FeedbackTable>;
export type PreferencesRow = Selectable<UserPreferencesTable>;

/** Stores one feedback answer. */
export async function insertFeedback(db: Kysely<Database>, row: Insertable<FeedbackTable>): Promise<void> {
  await db.insertInto('feedback').values(row).execute();
}

/** All of a user's feedback, oldest first (for building a profile). */
export async function allUserFeedback(db: Kysely<Database>, userId: string): Promise<FeedbackRow[]> {
  return db.selectFrom('feedback').selectAll().where('user_id', '=', userId).orderBy('created_at_ms').orderBy('id').execute();
}

/** A user's explicit preferences, if they set any. */
export async function findPreferences(db: Kysely<Database>, userId: string): Promise<PreferencesRow | undefined> {
  return db.selectFrom('user_preferences').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** Inserts or replaces a user's explicit preferences. */
export async function upsertPreferences(db: Kysely<Database>, row: PreferencesRow): Promise<void> {
  const { user_id: _userId, ...rest } = row;
  await db
    .insertInto('user_preferences')
    .values(row)
    .onConflict((oc) => oc.column('user_id').doUpdateSet(rest))
    .execute();
}
