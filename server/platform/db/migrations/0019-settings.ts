/**
 * Settings (server/settings/):
 * - `user_settings`: a user's settings that are not recommendation preferences (the
 *   ratio, languages and reblogs live in `user_preferences`): opting out of experiments
 *   and the language of recommendation reasons.
 * - `integration_settings`: the deployment's admin settings, one row per setting, the
 *   value as JSON (default instance, allowed instances, CORS origins, gate defaults).
 * Epoch milliseconds are bigint (64-bit in PostgreSQL too).
 * Frozen: never import app code here.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('user_settings')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('experiments_opt_out', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('reason_language', 'text')
    .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('integration_settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_by', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('integration_settings').execute();
  await db.schema.dropTable('user_settings').execute();
}
