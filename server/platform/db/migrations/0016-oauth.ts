/**
 * The service's own OAuth 2.0 authorization server (server/oauth/):
 * - `oauth_clients`: registered client apps; the secret only as a SHA-256 hash.
 * - `oauth_instance_apps`: this service's own registration as an app on each Mastodon
 *   instance it sends users to, per callback URL (the instance's secret is kept as given:
 *   the service must present it to the instance).
 * - `oauth_logins`: authorizations waiting for the user to come back from their instance,
 *   found by the hash of the state sent there; single-use.
 * - `oauth_codes`: the service's authorization codes (hash only), single-use, bound to the
 *   client, redirect URI, PKCE challenge, user and scopes.
 * - `oauth_token_families` and `oauth_refresh_tokens`: each token response (an access token
 *   in `tokens`, a refresh token here, hashes only) belongs to the family started by one
 *   code; refresh rotates within the family, and revoking a family revokes them all.
 * Epoch milliseconds are bigint (64-bit in PostgreSQL too).
 * Frozen: never import app code here.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oauth_clients')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('client_secret_hash', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('website', 'text')
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('oauth_instance_apps')
    .addColumn('instance', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_secret', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('oauth_instance_apps_pk', ['instance', 'redirect_uri'])
    .execute();

  await db.schema
    .createTable('oauth_logins')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('client_state', 'text')
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('instance', 'text', (c) => c.notNull())
    .addColumn('instance_redirect_uri', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('used_at_ms', 'bigint')
    .execute();
  await db.schema.createIndex('oauth_logins_expiry').on('oauth_logins').column('expires_at_ms').execute();

  await db.schema
    .createTable('oauth_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('used_at_ms', 'bigint')
    .execute();
  await db.schema.createIndex('oauth_codes_expiry').on('oauth_codes').column('expires_at_ms').execute();

  await db.schema
    .createTable('oauth_token_families')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.unique())
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at_ms', 'bigint')
    .execute();

  await db.schema
    .createTable('oauth_refresh_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('family_id', 'text', (c) => c.notNull().references('oauth_token_families.id').onDelete('cascade'))
    .addColumn('access_token_id', 'text', (c) => c.notNull())
    .addColumn('access_token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('access_expires_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('used_at_ms', 'bigint')
    .execute();
  await db.schema.createIndex('oauth_refresh_tokens_family').on('oauth_refresh_tokens').column('family_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'oauth_refresh_tokens',
    'oauth_token_families',
    'oauth_codes',
    'oauth_logins',
    'oauth_instance_apps',
    'oauth_clients',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
