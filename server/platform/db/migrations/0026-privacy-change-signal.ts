/**
 * PostgreSQL: every committed change to a user's row of `privacy_settings` (a level chosen,
 * changed, or the row erased, by any instance) sends a notification on channel
 * `recsvc_privacy_changed` whose payload is `<schema>/<user id>`. Each instance listens
 * (server/platform/db/postgres-change-signal.ts) and its privacy policy re-reads that user's level, so
 * a user who chose `none` through one instance is not tracked by another. Notifications are
 * delivered at commit, never for a rolled-back change. SQLite: nothing (one process owns the file).
 * Frozen: never import app code here.
 */
import { SqliteAdapter, sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`CREATE FUNCTION recsvc_notify_privacy_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('recsvc_privacy_changed', TG_TABLE_SCHEMA || '/' || OLD.user_id);
      ELSE
        PERFORM pg_notify('recsvc_privacy_changed', TG_TABLE_SCHEMA || '/' || NEW.user_id);
      END IF;
      RETURN NULL;
    END
  $$`.execute(db);
  await sql`CREATE TRIGGER privacy_settings_changed AFTER INSERT OR UPDATE OR DELETE ON privacy_settings
    FOR EACH ROW EXECUTE FUNCTION recsvc_notify_privacy_changed()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`DROP TRIGGER privacy_settings_changed ON privacy_settings`.execute(db);
  await sql`DROP FUNCTION recsvc_notify_privacy_changed()`.execute(db);
}
