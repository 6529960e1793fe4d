/**
 * PostgreSQL: every committed change to a user's row of `user_settings` (the experiments
 * opt-out or the reason language, set by any instance, or the row erased) sends a
 * notification on channel `recsvc_user_settings_changed` whose payload is `<schema>/<user id>`.
 * Each instance listens (server/platform/db/postgres-change-signal.ts) and forgets that user's cached
 * settings and enrolment, so a user who opted out of experiments through one instance is not
 * enrolled by another that had their settings cached. SQLite: nothing (one process owns the file).
 * Frozen: never import app code here.
 */
import { SqliteAdapter, sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`CREATE FUNCTION recsvc_notify_user_settings_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('recsvc_user_settings_changed', TG_TABLE_SCHEMA || '/' || OLD.user_id);
      ELSE
        PERFORM pg_notify('recsvc_user_settings_changed', TG_TABLE_SCHEMA || '/' || NEW.user_id);
      END IF;
      RETURN NULL;
    END
  $$`.execute(db);
  await sql`CREATE TRIGGER user_settings_changed AFTER INSERT OR UPDATE OR DELETE ON user_settings
    FOR EACH ROW EXECUTE FUNCTION recsvc_notify_user_settings_changed()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`DROP TRIGGER user_settings_changed ON user_settings`.execute(db);
  await sql`DROP FUNCTION recsvc_notify_user_settings_changed()`.execute(db);
}
