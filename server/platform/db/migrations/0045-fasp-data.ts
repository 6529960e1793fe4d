/**
 * The FASP provider's own data beyond registrations (issue 29):
 * - `fasp_debug_callbacks`: the debug capability's log, each call a server made to
 *   `/debug/v0/callback/logs` (when, from which address, its body) and whether the callback
 *   to the server succeeded (`callback_status`, null while pending or when it failed to connect).
 * - `fasp_subscriptions` / `fasp_backfills`: data_sharing event subscriptions and backfill
 *   requests this service made on a server, under the server's ids for them.
 * - `fasp_objects`: every object (post or account URI) stored because a server announced it,
 *   with when it was last validated at its origin: revalidated at least weekly.
 * - `fasp_signature_schemes`: per origin host, the signature scheme its fetches last succeeded
 *   with (`rfc9421` or `cavage`), so double-knocking happens once per host and period.
 * - `fasp_actor`: the one key pair of this service's ActivityPub actor (RSA, as fediverse
 *   servers verify), its private key sealed under the FASP key like the registrations' keys.
 *
 * Frozen: never import app code here.
 */
import type { Kysely } from 'kysely';
import { epochMsType } from './portable-types.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('fasp_debug_callbacks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('server_id', 'text', (c) => c.notNull().references('fasp_servers.id').onDelete('cascade'))
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('callback_status', 'integer')
    .addColumn('created_at_ms', epochMsType(db), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('fasp_debug_callbacks_server').on('fasp_debug_callbacks').columns(['server_id', 'created_at_ms']).execute();

  await db.schema
    .createTable('fasp_subscriptions')
    .addColumn('server_id', 'text', (c) => c.notNull().references('fasp_servers.id').onDelete('cascade'))
    .addColumn('remote_id', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('subscription_type', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', epochMsType(db), (c) => c.notNull())
    .addPrimaryKeyConstraint('fasp_subscriptions_pk', ['server_id', 'remote_id'])
    .execute();

  await db.schema
    .createTable('fasp_backfills')
    .addColumn('server_id', 'text', (c) => c.notNull().references('fasp_servers.id').onDelete('cascade'))
    .addColumn('remote_id', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('more_available', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at_ms', epochMsType(db), (c) => c.notNull())
    .addPrimaryKeyConstraint('fasp_backfills_pk', ['server_id', 'remote_id'])
    .execute();

  await db.schema
    .createTable('fasp_objects')
    .addColumn('uri', 'text', (c) => c.primaryKey())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('validated_at_ms', epochMsType(db), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('fasp_objects_validated').on('fasp_objects').column('validated_at_ms').execute();

  await db.schema
    .createTable('fasp_signature_schemes')
    .addColumn('host', 'text', (c) => c.primaryKey())
    .addColumn('scheme', 'text', (c) => c.notNull())
    .addColumn('checked_at_ms', epochMsType(db), (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('fasp_actor')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('private_key_sealed', 'text', (c) => c.notNull())
    .addColumn('public_key_pem', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', epochMsType(db), (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'fasp_actor',
    'fasp_signature_schemes',
    'fasp_objects',
    'fasp_backfills',
    'fasp_subscriptions',
    'fasp_debug_callbacks',
  ])
    await db.schema.dropTable(table).execute();
}
