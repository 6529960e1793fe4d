/**
 * `openDatabase` with a postgres:// URL: kysely's PostgreSQL dialect over a pool of the
 * configured size, a real ping, a clear error (without the password) for a server that
 * does not answer, and a pool that survives its connections being killed.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseOpenError, openDatabase, type DatabaseHandle } from '../../server/platform/db/connection.js';
import { createTestSchema, postgresUnavailable, suiteTitle, TEST_DATABASE_URL, type TestSchema } from './postgres-test-database.js';

const unavailable = await postgresUnavailable();

describe.skipIf(unavailable !== undefined)(suiteTitle('the connection', unavailable), () => {
  let schema: TestSchema;
  let database: DatabaseHandle;

  beforeAll(async () => {
    schema = await createTestSchema();
    const url = new URL(schema.url);
    url.searchParams.set('application_name', schema.name);
    database = await openDatabase(url.toString(), { poolSize: 3 });
  });

  afterAll(async () => {
    try {
      await database?.close();
    } finally {
      await schema?.drop();
    }
  });

  it('selects PostgreSQL for a postgres:// URL and pings with a measured round trip', async () => {
    expect(database.dialect).toBe('postgres');
    const latency = await database.ping();
    expect(latency).toBeGreaterThan(0);
    expect(latency).toBeLessThan(10_000);
    const { rows } = await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(database.db);
    expect(rows[0]!.schema).toBe(schema.name);
  });

  it('opens at most the configured number of connections and reports them', async () => {
    // Five queries that each hold a connection for a moment: three run, two wait.
    const busy = Array.from({ length: 5 }, () => sql`SELECT pg_sleep(0.2)`.execute(database.db));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const during = database.connections();
    expect(during.max).toBe(3);
    expect(during.open).toBe(3);
    expect(during.waiting).toBe(2);
    await Promise.all(busy);
    expect(database.connections()).toMatchObject({ open: 3, idle: 3, waiting: 0 });
  });

  it('recovers when the server ends its connections (a restart, an administrator)', async () => {
    // Only this test's connections: they carry the schema's name as their application name.
    const { rows } = await schema.admin.query<{ killed: boolean }>(
      `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE application_name = $1`,
      [schema.name],
    );
    expect(rows.length).toBeGreaterThan(0);
    // The pool drops the dead clients (its error listener keeps the process up) and opens new ones.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await database.ping()).toBeGreaterThan(0);
  });

  it('a new number from externalWrites on every call while no trigger signals token changes: caches re-read', () => {
    expect(database.externalWrites()).not.toBe(database.externalWrites());
  });

  it('fails to open with the server named and the password hidden', async () => {
    const url = new URL(TEST_DATABASE_URL);
    url.port = '1';
    url.password = 'hunter2';
    const opening = openDatabase(url.toString(), { connectTimeoutMs: 2_000 });
    await expect(opening).rejects.toBeInstanceOf(DatabaseOpenError);
    await expect(opening).rejects.toThrow(/cannot open database postgres:\/\/.*:\*\*\*@.*:1\//);
    await expect(opening).rejects.not.toThrow(/hunter2/);
  });
});

describe('openDatabase without a URL', () => {
  it('opens SQLite, whose ping is measured too and throws at the call when the database is gone', async () => {
    const database = await openDatabase(':memory:');
    expect(database.dialect).toBe('sqlite');
    expect(await database.ping()).toBeGreaterThanOrEqual(0);
    expect(database.connections()).toEqual({ max: 1, open: 1, idle: 1, waiting: 0 });
    await database.close();
    expect(() => void database.ping()).toThrow(/not open/);
  });
});
