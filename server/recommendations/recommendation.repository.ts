/** SQL for feedback and explicit preferences. */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../platform/db/database.js';
import { queryTemplate } from '../platform/db/precompiled-query.js';
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

/** The post of each of a user's feedback answers (one id per answer). */
export async function userFeedbackPostIds(db: Kysely<Database>, userId: string): Promise<string[]> {
  const { rows } = await feedbackPostIdsQuery(db, [userId]);
  return rows.map((row) => row.post_id);
}

const feedbackPostIdsQuery = queryTemplate((db: Kysely<Database>, args) =>
  db
    .selectFrom('feedback')
    .select('post_id')
    .where('user_id', '=', args[0] as string),
);

/** Every user with at least one feedback answer. */
export async function feedbackUsers(db: Kysely<Database>): Promise<string[]> {
  return (await db.selectFrom('feedback').select('user_id').distinct().orderBy('user_id').execute()).map((r) => r.user_id);
}

/** A user's explicit preferences, if they set any (read by every first request of a user: built once). */
export async function findPreferences(db: Kysely<Database>, userId: string): Promise<PreferencesRow | undefined> {
  return (await findPreferencesQuery(db, [userId])).rows[0];
}

const findPreferencesQuery = queryTemplate((db: Kysely<Database>, args) =>
  db
    .selectFrom('user_preferences')
    .selectAll()
    .where('user_id', '=', args[0] as string),
);

/** Inserts or replaces a user's explicit preferences. */
export async function upsertPreferences(db: Kysely<Database>, row: PreferencesRow): Promise<void> {
  const { user_id: _userId, ...rest } = row;
  await db
    .insertInto('user_preferences')
    .values(row)
    .onConflict((oc) => oc.column('user_id').doUpdateSet(rest))
    .execute();
}
