/**
 * PostgreSQL: every committed change to `tokens` (a token created, revoked, purged, by any
 * process) sends a notification on channel `recsvc_tokens_changed` whose payload is the
 * schema's name. Each instance listens (server/platform/db/postgres-change-signal.ts) and its token
 * cache drops its entries, as SQLite's data_version tells a process about another's commits.
 * Notifications are delivered at commit, never for a rolled-back change. SQLite: nothing.
 * Frozen: never import app code here.
 */
import { SqliteAdapter, sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`CREATE FUNCTION recsvc_notify_tokens_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('recsvc_tokens_changed', TG_TABLE_SCHEMA);
      RETURN NULL;
    END
  $$`.execute(db);
  await sql`CREATE TRIGGER tokens_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tokens
    FOR EACH STATEMENT EXECUTE FUNCTION recsvc_notify_tokens_changed()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`DROP TRIGGER tokens_changed ON tokens`.execute(db);
  await sql`DROP FUNCTION recsvc_notify_tokens_changed()`.execute(db);
}
