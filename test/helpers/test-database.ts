/**
 * The database an app test runs on: SQLite (in memory, or the file `dbPath`) by default;
 * with RECSVC_TEST_BACKEND=postgres (vitest.postgres.config.ts), a schema of the PostgreSQL
 * test database (test/postgres/postgres-test-database.ts), migrated the same way.
 *
 * On PostgreSQL a `dbPath` names a schema instead of a file (derived from the path), so a
 * test that closes its app and opens another on the same path (a restart) finds its rows
 * again; such schemas outlive close() and the run's global teardown drops them. A fresh
 * schema is dropped on close.
 */
import { createHash } from 'node:crypto';
import { inject } from 'vitest';
import { openDatabase, openSqlite, type DatabaseHandle } from '../../server/db/connection.js';
import { migrateToLatest } from '../../server/db/migrate.js';
import { createTestSchema, TEST_DATABASE_URL } from '../postgres/postgres-test-database.js';

export type TestBackend = 'sqlite' | 'postgres';

/** The backend of this run. */
export const TEST_BACKEND: TestBackend = process.env.RECSVC_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';

/** Connections per test database on PostgreSQL: room for the concurrency tests, little for two workers' files. */
const TEST_POOL_SIZE = 4;

declare module 'vitest' {
  export interface ProvidedContext {
    /** Prefix of the schemas standing for `dbPath` files in this run (test/helpers/postgres-global-setup.ts). */
    pgFileSchemaPrefix: string;
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
  if (dbPath !== undefined) return openFileSchema(dbPath);
  const schema = await createTestSchema();
  const database = await openDatabase(schema.url, { poolSize: TEST_POOL_SIZE });
  await migrateToLatest(database.db);
  return {
    database,
    privacy: { pseudonymKey: createHash('sha256').update(schema.name).digest('hex') },
    close: async () => {
      try {
        await database.close();
      } finally {
        await schema.drop();
      }
    },
  };
}

/** The schema standing for the file `dbPath`: created on first use, kept until the run ends. */
async function openFileSchema(dbPath: string): Promise<TestDatabase> {
  const name = `${inject('pgFileSchemaPrefix')}${createHash('sha256').update(dbPath).digest('hex').slice(0, 16)}`;
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA IF NOT EXISTS ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${name}`);
  const database = await openDatabase(url.toString(), { poolSize: TEST_POOL_SIZE });
  await migrateToLatest(database.db);
  return {
    database,
    privacy: { pseudonymKey: createHash('sha256').update(`key:${dbPath}`).digest('hex') },
    close: () => database.close(),
  };
}
