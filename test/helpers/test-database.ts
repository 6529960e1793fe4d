/**
 * The database an app test runs on: SQLite (in memory, or the file `dbPath`) by default;
 * with RECSVC_TEST_BACKEND=postgres (vitest.postgres.config.ts), a schema of the PostgreSQL
 * test database (test/postgres/postgres-test-database.ts), migrated the same way.
 *
 * Migrating a PostgreSQL schema takes about a second, as long as most tests, so a schema is
 * emptied (every row deleted, identities restarted at 1: as fresh as a new one) and handed
 * to the next test instead of dropped, unless its structure changed. Schemas are claimed by
 * renaming them from `…free_` to `…used_` (atomic: two workers cannot claim the same one) and
 * all carry the run's prefix, so the run's global teardown drops whatever is left.
 *
 * On PostgreSQL a `dbPath` names a schema instead of a file (derived from the path), so a
 * test that closes its app and opens another on the same path (a restart) finds its rows
 * again; such schemas outlive close() until the teardown.
 */
import { createHash, randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Client } from 'pg';
import { inject } from 'vitest';
import { openDatabase, openSqlite, type DatabaseHandle } from '../../server/platform/db/connection.js';
import type { Database } from '../../server/platform/db/database.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { TEST_DATABASE_URL } from '../postgres/postgres-test-database.js';

export type TestBackend = 'sqlite' | 'postgres';

/** The backend of this run. */
export const TEST_BACKEND: TestBackend = process.env.RECSVC_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';

/** Connections per test database on PostgreSQL: room for the concurrency tests, little for two workers' files. */
const TEST_POOL_SIZE = 4;

declare module 'vitest' {
  export interface ProvidedContext {
    /** Prefix of this run's schemas (test/helpers/postgres-global-setup.ts). */
    pgSchemaPrefix: string;
  }
}

export interface TestDatabase {
  database: DatabaseHandle;
  /**
   * What a privacy policy over this database is given: the file (its key file beside it) on
   * SQLite; on PostgreSQL an explicit key, as a database server requires (one per `dbPath`,
   * so pseudonyms survive a restart as the key file makes them on SQLite).
   */
  privacy: { dbPath?: string; pseudonymKey?: string };
  close(): Promise<void>;
}

/** Opens and migrates the test database of this run's backend. */
export async function openTestDatabase(dbPath?: string): Promise<TestDatabase> {
  if (TEST_BACKEND === 'sqlite') {
    const database = openSqlite(dbPath ?? ':memory:');
    await migrateToLatest(database.db);
    return { database, privacy: dbPath === undefined ? {} : { dbPath }, close: () => database.close() };
  }
  return dbPath === undefined ? openPooledSchema() : openFileSchema(dbPath);
}

function schemaUrl(name: string): string {
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${name}`);
  return url.toString();
}

async function withAdmin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The schema's tables and columns in one value: a test that renamed a table and did not rename it back changes it. */
async function structureOf(client: Client, schema: string): Promise<string> {
  const { rows } = await client.query<{ shape: string | null }>(
    `SELECT md5(string_agg(table_name || '.' || column_name || ':' || data_type, ',' ORDER BY table_name, column_name)) AS shape
       FROM information_schema.columns WHERE table_schema = $1`,
    [schema],
  );
  return rows[0]?.shape ?? '';
}

/** A free schema of this run renamed to a used one, or undefined when none is free. */
async function claimFreeSchema(client: Client, prefix: string): Promise<string | undefined> {
  const { rows } = await client.query<{ name: string }>(`SELECT nspname AS name FROM pg_namespace WHERE starts_with(nspname, $1)`, [
    `${prefix}free_`,
  ]);
  for (const { name } of rows) {
    const used = name.replace(`${prefix}free_`, `${prefix}used_`);
    try {
      await client.query(`ALTER SCHEMA ${name} RENAME TO ${used}`);
      return used;
    } catch {
      // Another worker claimed it first.
    }
  }
  return undefined;
}

/** An empty, migrated schema: a free one of this run, or a new one. */
async function openPooledSchema(): Promise<TestDatabase> {
  const prefix = inject('pgSchemaPrefix');
  let name = await withAdmin((client) => claimFreeSchema(client, prefix));
  let database: DatabaseHandle;
  if (name === undefined) {
    name = `${prefix}used_${randomBytes(6).toString('hex')}`;
    const created = name;
    await withAdmin((client) => client.query(`CREATE SCHEMA ${created}`));
    database = await openDatabase(schemaUrl(name), { poolSize: TEST_POOL_SIZE });
    await migrateToLatest(database.db);
    // The migrated shape goes with the schema (a comment survives the renames), for release().
    const shape = await withAdmin((client) => structureOf(client, created));
    await withAdmin((client) => client.query(`COMMENT ON SCHEMA ${created} IS '${shape}'`));
  } else {
    database = await openDatabase(schemaUrl(name), { poolSize: TEST_POOL_SIZE });
  }
  const schema = name;
  let closed = false;
  return {
    database,
    privacy: { pseudonymKey: createHash('sha256').update(schema).digest('hex') },
    // Idempotent, as SQLite's close is: a test may close its app and its afterEach again.
    close: async () => {
      if (closed) return;
      closed = true;
      try {
        await database.close();
      } finally {
        await withAdmin((client) => release(client, prefix, schema));
      }
    },
  };
}

/** Empties the schema and frees it, or drops it when its structure is no longer the migrated one. */
async function release(client: Client, prefix: string, schema: string): Promise<void> {
  const { rows: described } = await client.query<{ shape: string | null }>(
    `SELECT obj_description(oid, 'pg_namespace') AS shape FROM pg_namespace WHERE nspname = $1`,
    [schema],
  );
  if (described[0]?.shape !== (await structureOf(client, schema))) {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    return;
  }
  // DELETE rather than TRUNCATE: TRUNCATE gives every table and index new files, which took
  // most of a second per test; the rows of one test are few. Foreign keys are not checked
  // meanwhile (every table is emptied), and identity sequences start again at 1.
  const { rows: tables } = await client.query<{ name: string }>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 AND NOT starts_with(tablename, 'kysely_')`,
    [schema],
  );
  const { rows: sequences } = await client.query<{ name: string }>(`SELECT sequencename AS name FROM pg_sequences WHERE schemaname = $1`, [
    schema,
  ]);
  await client.query(
    [
      'BEGIN',
      'SET LOCAL session_replication_role = replica',
      ...tables.map(({ name }) => `DELETE FROM ${schema}."${name}"`),
      ...sequences.map(({ name }) => `SELECT setval('${schema}."${name}"', 1, false)`),
      'COMMIT',
    ].join(';\n'),
  );
  const free = schema.replace(`${prefix}used_`, `${prefix}free_`);
  await client.query(`ALTER SCHEMA ${schema} RENAME TO ${free}`);
}

/** The schema standing for the file `dbPath`: created on first use, kept until the run ends. */
async function openFileSchema(dbPath: string): Promise<TestDatabase> {
  const name = `${inject('pgSchemaPrefix')}file_${createHash('sha256').update(dbPath).digest('hex').slice(0, 16)}`;
  await withAdmin((client) => client.query(`CREATE SCHEMA IF NOT EXISTS ${name}`));
  const database = await openDatabase(schemaUrl(name), { poolSize: TEST_POOL_SIZE });
  await migrateToLatest(database.db);
  return {
    database,
    privacy: { pseudonymKey: createHash('sha256').update(`key:${dbPath}`).digest('hex') },
    close: () => database.close(),
  };
}

/**
 * Runs `seed` with foreign keys not enforced, for tests that store only the rows a query
 * reads: SQLite's pragma (a no-op inside a transaction, so around none), PostgreSQL's
 * replica role for one transaction (the test user is a superuser).
 */
export async function withoutForeignKeys(db: Kysely<Database>, seed: (db: Kysely<Database>) => Promise<void>): Promise<void> {
  if (TEST_BACKEND === 'postgres') {
    await db.transaction().execute(async (trx) => {
      await sql`SET LOCAL session_replication_role = replica`.execute(trx);
      await seed(trx);
    });
    return;
  }
  await sql`PRAGMA foreign_keys = OFF`.execute(db);
  try {
    await seed(db);
  } finally {
    await sql`PRAGMA foreign_keys = ON`.execute(db);
  }
}
