/**
 * Applies the explicit, frozen migration list at start and refuses databases
 * written by a newer recsvc (an applied migration this build does not know).
 *
 * Several processes starting at once on one database apply each migration once. PostgreSQL:
 * kysely's migrator holds a session advisory lock while it migrates, and the others then
 * find nothing left to do. SQLite (where kysely's migration lock does nothing, since it
 * assumes one process): the whole run is one `BEGIN IMMEDIATE` transaction, so the others
 * wait for the database's write lock and then find the migrations applied; and a migration
 * that fails leaves none of its tables behind.
 */
import { Migrator, PostgresAdapter, sql, type DatabaseIntrospector, type Kysely, type MigrationProvider, type TableMetadata } from 'kysely';
import { MIGRATIONS } from './migrations/index.js';
import { schemaTables } from './schema-tables.js';
import { InputError } from '../../../src/errors.js';

export class MigrationError extends InputError {}

const provider: MigrationProvider = { getMigrations: async () => ({ ...MIGRATIONS }) };

/** Applies pending migrations; returns the names applied now. */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return migrate(db);
  await sql`BEGIN IMMEDIATE`.execute(db);
  try {
    const applied = await migrate(db);
    await sql`COMMIT`.execute(db);
    return applied;
  } catch (error) {
    await sql`ROLLBACK`.execute(db).catch(() => undefined);
    throw error;
  }
}

async function migrate(db: Kysely<any>): Promise<string[]> {
  const schema = await migrationSchema(db);
  const scoped = schema === undefined ? db : inSchemaOnly(db, schema);
  await refuseNewerDatabase(scoped, schema);
  const migrator = new Migrator({ db: scoped, provider, ...(schema === undefined ? {} : { migrationTableSchema: schema }) });
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

/**
 * `db` whose introspection sees `schema` alone (schema-tables.ts says why kysely's own
 * introspector must not be used on PostgreSQL): the migrator asks which tables exist.
 */
function inSchemaOnly(db: Kysely<any>, schema: string): Kysely<any> {
  const getTables = (): Promise<TableMetadata[]> => schemaTables(db, schema);
  const introspection: DatabaseIntrospector = {
    getSchemas: async () => [{ name: schema }],
    getTables,
    getMetadata: async () => ({ tables: await getTables() }),
  };
  // kysely's methods use private fields: call them on the real instance.
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
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
