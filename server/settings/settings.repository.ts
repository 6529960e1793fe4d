/** SQL of the settings tables. */
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../platform/db/database.js';
import { queryTemplate } from '../platform/db/precompiled-query.js';
import type { IntegrationSettingsTable, UserSettingsTable } from './settings.tables.js';

export type UserSettingsRow = Selectable<UserSettingsTable>;
export type IntegrationSettingRow = Selectable<IntegrationSettingsTable>;

/** The user's settings row, if they ever set one (read at each user's first list since the start: built once). */
export async function findUserSettings(db: Kysely<Database>, userId: string): Promise<UserSettingsRow | undefined> {
  return (await findUserSettingsQuery(db, [userId])).rows[0];
}

const findUserSettingsQuery = queryTemplate((db: Kysely<Database>, args) =>
  db
    .selectFrom('user_settings')
    .selectAll()
    .where('user_id', '=', args[0] as string),
);

/** The settings a PATCH changes (the others keep their stored value). */
export type UserSettingsChange = Partial<Pick<UserSettingsRow, 'experiments_opt_out' | 'reason_language'>>;

/**
 * Writes only the given columns, in one statement: a new row takes the defaults for the
 * others, an existing one keeps them, so concurrent changes of different settings both land.
 */
export async function changeUserSettings(db: Kysely<Database>, userId: string, change: UserSettingsChange, nowMs: number): Promise<void> {
  await db
    .insertInto('user_settings')
    .values({ user_id: userId, experiments_opt_out: 0, reason_language: null, ...change, updated_at_ms: nowMs })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ ...change, updated_at_ms: nowMs }))
    .execute();
}

/** Every stored integration setting. */
export async function listIntegrationSettings(db: Kysely<Database>): Promise<IntegrationSettingRow[]> {
  return db.selectFrom('integration_settings').selectAll().execute();
}

/** Writes these integration settings in one transaction. */
export async function upsertIntegrationSettings(db: Kysely<Database>, rows: readonly IntegrationSettingRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (const row of rows) {
      await trx
        .insertInto('integration_settings')
        .values(row)
        .onConflict((oc) =>
          oc.column('name').doUpdateSet({ value: row.value, updated_at_ms: row.updated_at_ms, updated_by: row.updated_by }),
        )
        .execute();
    }
  });
}

/** The integration settings these user ids last changed (an admin's trace). */
export async function settingsChangedBy(
  db: Kysely<Database>,
  userIds: readonly string[],
): Promise<Pick<IntegrationSettingRow, 'name' | 'updated_at_ms' | 'updated_by'>[]> {
  return db.selectFrom('integration_settings').select(['name', 'updated_at_ms', 'updated_by']).where('updated_by', 'in', userIds).execute();
}

/** Settings these user ids changed keep their value but no longer name them; the number changed. */
export async function forgetSettingsAuthor(db: Kysely<Database>, userIds: readonly string[]): Promise<number> {
  const result = await db
    .updateTable('integration_settings')
    .set({ updated_by: null })
    .where('updated_by', 'in', userIds)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
