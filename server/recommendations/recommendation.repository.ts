/** SQL for feedback and explicit preferences. */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../platform/db/database.js';
import { jsonValues, parseJsonRows } from '../platform/db/json-rows.js';
import { queryTemplate } from '../platform/db/precompiled-query.js';
import type { UserColumns } from '../platform/db/user-columns.js';
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

/** What a ranking profile uses of a user's explicit preferences. */
export type ProfilePreferencesRow = Pick<PreferencesRow, (typeof PROFILE_PREFERENCE_COLUMNS)[number]>;

/** A user's feedback posts and preferences as read by one statement with other features' columns. */
export interface ProfileRows {
  feedbackPostIds: string[];
  preferences: ProfilePreferencesRow | undefined;
}

const PROFILE_PREFERENCE_COLUMNS = [
  'favoured_authors',
  'muted_authors',
  'favoured_tags',
  'muted_tags',
  'languages',
  'include_reblogs',
  'allow_sensitive',
] as const;

/**
 * The post of each of a user's feedback answers (one id per answer) and the preferences a profile
 * uses, as scalar subqueries for a per-user statement (server/platform/db/user-columns.ts): the
 * posts as one JSON value, the preferences a column each (one seek of the key each; most users have none).
 */
export const profileColumns: UserColumns<ProfileRows> = {
  columns: (db, userId) => [
    db.selectFrom('feedback').select(jsonValues(db, 'post_id').as('post_ids')).where('user_id', '=', userId).as('feedback_post_ids'),
    ...PROFILE_PREFERENCE_COLUMNS.map((column) =>
      db.selectFrom('user_preferences').select(column).where('user_id', '=', userId).as(`preferences_${column}`),
    ),
  ],
  read: (row) => ({
    feedbackPostIds: parseJsonRows<string>(row.feedback_post_ids),
    // include_reblogs is never null in a stored row: null is no row.
    preferences:
      row.preferences_include_reblogs === null || row.preferences_include_reblogs === undefined
        ? undefined
        : {
            favoured_authors: row.preferences_favoured_authors as string,
            muted_authors: row.preferences_muted_authors as string,
            favoured_tags: row.preferences_favoured_tags as string,
            muted_tags: row.preferences_muted_tags as string,
            languages: row.preferences_languages as string,
            include_reblogs: Number(row.preferences_include_reblogs),
            allow_sensitive: Number(row.preferences_allow_sensitive),
          },
  }),
};

/** Inserts or replaces a user's explicit preferences. */
export async function upsertPreferences(db: Kysely<Database>, row: PreferencesRow): Promise<void> {
  const { user_id: _userId, ...rest } = row;
  await db
    .insertInto('user_preferences')
    .values(row)
    .onConflict((oc) => oc.column('user_id').doUpdateSet(rest))
    .execute();
}
