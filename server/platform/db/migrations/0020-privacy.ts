/**
 * Privacy (server/privacy/):
 * - `privacy_settings`: a user's chosen tracking level (`full`, `limited`, `none`); users
 *   without a row are at the deployment's default (RECSVC_DEFAULT_TRACKING_LEVEL). Keyed by
 *   the raw user id: it is the user's own setting, read on every write path, and erased
 *   with everything else of theirs.
 * The pseudonym key never lives in the database (a file beside it, or the configuration).
 * Epoch milliseconds are bigint (64-bit in PostgreSQL too).
 * Frozen: never import app code here.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('privacy_settings')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('tracking_level', 'text', (c) => c.notNull())
    .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('privacy_settings').execute();
}
