/**
 * PostgreSQL: every committed statement that changes `experiments`, `experiment_variants` or
 * `experiment_active_periods` (a lifecycle change, an allocation, a block: by any instance, or
 * by another process such as `recsvc agents run experiment_gates` or `recsvc experiment`)
 * sends a notification on channel `recsvc_experiments_changed` whose payload is the schema.
 * Each instance listens (server/platform/db/postgres-change-signal.ts) and its experiments runtime
 * forgets what it cached, so a variant blocked from the command line stops being served at
 * once instead of at the runtime's next 30 s refresh. These tables change only with the
 * lifecycle, never per request. SQLite: nothing. Frozen: never import app code here.
 */
import { SqliteAdapter, sql, type Kysely } from 'kysely';

const TABLES = ['experiments', 'experiment_variants', 'experiment_active_periods'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`CREATE FUNCTION recsvc_notify_experiments_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('recsvc_experiments_changed', TG_TABLE_SCHEMA);
      RETURN NULL;
    END
  $$`.execute(db);
  for (const table of TABLES) {
    await sql`CREATE TRIGGER ${sql.id(`${table}_changed`)} AFTER INSERT OR UPDATE OR DELETE ON ${sql.table(table)}
      FOR EACH STATEMENT EXECUTE FUNCTION recsvc_notify_experiments_changed()`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  for (const table of TABLES) await sql`DROP TRIGGER ${sql.id(`${table}_changed`)} ON ${sql.table(table)}`.execute(db);
  await sql`DROP FUNCTION recsvc_notify_experiments_changed()`.execute(db);
}
