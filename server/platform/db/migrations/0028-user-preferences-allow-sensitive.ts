/**
 * `user_preferences.allow_sensitive`: the user lets sensitive posts (content warnings) be
 * recommended and woven into their timelines; 0 (off) for every existing user and by default.
 * Stored as 0/1 like `include_reblogs`; `integer` with a constant default is the same
 * statement on SQLite and PostgreSQL. Frozen: never import app code here.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('user_preferences')
    .addColumn('allow_sensitive', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('user_preferences').dropColumn('allow_sensitive').execute();
}
