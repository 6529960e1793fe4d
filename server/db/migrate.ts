/**
 * Applies the explicit, frozen migration list at start and refuses databases
 * written by a newer recsvc (an applied migration this build does not know).
 */
import { Migrator, PostgresAdapter, sql, type Kysely, type MigrationProvider } from 'kysely';
import { MIGRATIONS } from './migrations/index.js';
import { InputError } from '../../src/errors.js';

export class MigrationError extends InputError {}

const provider: MigrationProvider = { getMigrations: async () => ({ ...MIGRATIONS }) };

/** Applies pending migrations; returns the names applied now. */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const schema = await migrationSchema(db);
  await refuseNewerDatabase(db, schema);
  const migrator = new Migrator({ db, provider, ...(schema === undefined ? {} : { migrationTableSchema: schema }) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    // A migration may throw anything; a non-Error is shown as String() shows it.
    // eslint-disable-next-line @typescript-eslint/no-base-to-string
    throw new MigrationError(`database migration failed: ${(error as Error).message ?? String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * PostgreSQL: the schema the tables go to (the first of the connection's search_path).
 * kysely's migrator otherwise looks for its bookkeeping tables in EVERY schema of the
 * database and takes another schema's for its own; naming this one keeps deployments (and
 * test runs) that share a database in separate schemas apart. SQLite: undefined.
 */
async function migrationSchema(db: Kysely<any>): Promise<string | undefined> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return undefined;
  const { rows } = await sql<{ schema: string | null }>`SELECT current_schema() AS schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) throw new MigrationError('database migration failed: no schema to create tables in (check the search_path)');
  return schema;
}

async function refuseNewerDatabase(db: Kysely<any>, schema: string | undefined): Promise<void> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((t) => t.name === 'kysely_migration' && (schema === undefined || t.schema === schema))) return;
  const scoped = schema === undefined ? db : db.withSchema(schema);
  const applied = await (scoped as Kysely<{ kysely_migration: { name: string } }>).selectFrom('kysely_migration').select('name').execute();
  const unknown = applied.map((row) => row.name).filter((name) => !(name in MIGRATIONS));
  if (unknown.length > 0) {
    throw new MigrationError(
      `the database was written by a newer recsvc (unknown migrations: ${unknown.join(', ')}); upgrade recsvc or use another --db`,
    );
  }
}
