/**
 * The consent step of the service's own OAuth server (server/oauth/):
 * - `oauth_consents`: authorizations whose user is known (back from their instance) and
 *   that wait for the user to approve or deny the client on the consent page. Found by the
 *   SHA-256 of the one-time ticket in the page's form; single-use, short-lived.
 * Epoch milliseconds are bigint (64-bit in PostgreSQL too).
 * Frozen: never import app code here.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oauth_consents')
    .addColumn('ticket_hash', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('client_state', 'text')
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('used_at_ms', 'bigint')
    .execute();
  await db.schema.createIndex('oauth_consents_expiry').on('oauth_consents').column('expires_at_ms').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oauth_consents').execute();
}
