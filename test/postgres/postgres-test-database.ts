/**
 * The PostgreSQL server the test/postgres suites run against: RECSVC_TEST_DATABASE_URL, or
 * the local default that `.ci/postgres-up.sh` provides. Each test file works in its own
 * schema (created here, dropped after), so runs and files never see each other's tables.
 * When no server answers, the suites skip with the reason in their title.
 */
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { openDatabase, type DatabaseHandle } from '../../server/platform/db/connection.js';

export const TEST_DATABASE_URL = process.env.RECSVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

type Pg = typeof import('pg');

async function loadPg(): Promise<Pg | string> {
  try {
    const loaded = (await import('pg')) as Pg & { default?: Pg };
    return loaded.default ?? loaded;
  } catch {
    return 'the pg package is not installed (npm install pg)';
  }
}

/**
 * Why the PostgreSQL suites cannot run here (also printed, one line per file, since a
 * skipped file's titles are not), or undefined when the server answers.
 */
export async function postgresUnavailable(): Promise<string | undefined> {
  const reason = await probe();
  if (reason !== undefined) console.warn(`PostgreSQL suite skipped: ${reason}`);
  return reason;
}

async function probe(): Promise<string | undefined> {
  const pg = await loadPg();
  if (typeof pg === 'string') return pg;
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return `no PostgreSQL at ${TEST_DATABASE_URL} (${(error as Error).message}); set RECSVC_TEST_DATABASE_URL or run .ci/postgres-up.sh`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The title of a PostgreSQL suite: says why it is skipped when it is. */
export function suiteTitle(title: string, unavailable: string | undefined): string {
  return unavailable === undefined ? `PostgreSQL: ${title}` : `PostgreSQL: ${title} — SKIPPED: ${unavailable}`;
}

export interface TestSchema {
  /** The schema's name (unique per call). */
  name: string;
  /** The test database's URL with the schema first on the search_path: give it to openDatabase. */
  url: string;
  /** An administrative pool on the test database (outside the schema). */
  admin: Pool;
  /** Drops the schema and everything in it, and closes the admin pool. */
  drop(): Promise<void>;
}

/** Creates a fresh, empty schema in the test database. */
export async function createTestSchema(): Promise<TestSchema> {
  const pg = await loadPg();
  if (typeof pg === 'string') throw new Error(pg);
  const name = `recsvc_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
  await admin.query(`CREATE SCHEMA ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${name}`);
  return {
    name,
    url: url.toString(),
    admin,
    drop: async () => {
      try {
        await admin.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
      } finally {
        await admin.end();
      }
    },
  };
}

/**
 * Runs `observe` on a fresh in-memory SQLite database and on a fresh PostgreSQL schema (each
 * opened and closed around it), for tests that require both backends to observe the same.
 * The schema is returned for the caller to drop.
 */
export async function observeOnBoth<T>(
  observe: (database: DatabaseHandle) => Promise<T>,
): Promise<{ sqlite: T; postgres: T; schema: TestSchema }> {
  const schema = await createTestSchema();
  const run = async (target: string): Promise<T> => {
    const database = await openDatabase(target);
    try {
      return await observe(database);
    } finally {
      await database.close();
    }
  };
  return { sqlite: await run(':memory:'), postgres: await run(schema.url), schema };
}
