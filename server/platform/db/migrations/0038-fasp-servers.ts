/**
 * `fasp_servers`: the fediverse servers this service is a FASP provider for (issue 29), one
 * row per registration:
 * - `id`: the server id this service gave the server at registration; the server signs its
 *   requests with it as `keyid`.
 * - `fasp_id`: the id the server gave this service; this service signs its requests with it.
 * - `private_key_sealed`: this service's Ed25519 private key for that server (PKCS#8),
 *   AES-256-GCM-sealed under the FASP key kept outside the database (server/fasp/fasp-keys.ts);
 *   `public_key`: its raw 32 bytes, base64. `server_public_key`: the server's, raw, base64.
 * - `capabilities`: a JSON array of the enabled capabilities, `"<id>/<major version>"`.
 *
 * Frozen: never import app code here.
 */
import type { Kysely } from 'kysely';
import { epochMsType } from './portable-types.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('fasp_servers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('base_url', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('fasp_id', 'text', (c) => c.notNull())
    .addColumn('private_key_sealed', 'text', (c) => c.notNull())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('server_public_key', 'text', (c) => c.notNull())
    .addColumn('capabilities', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at_ms', epochMsType(db), (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('fasp_servers').execute();
}
