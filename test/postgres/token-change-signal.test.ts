/**
 * PostgreSQL's "another process committed to tokens" signal (migration 0024's trigger and
 * the listener of server/platform/db/postgres-change-signal.ts): untrusted, and so moving at every
 * read, until the trigger is there; then moving only for committed changes of this schema;
 * back after its connection is killed; and a token revoked by another process is refused
 * by an instance's token cache.
 */
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ServiceTokenVerifier } from '../../server/platform/auth/service-token-verifier.js';
import { createToken, revokeTokenById } from '../../server/platform/auth/token.service.js';
import { openDatabase, type DatabaseHandle } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import * as m0024 from '../../server/platform/db/migrations/0024-tokens-change-signal.js';
import { MIGRATIONS } from '../../server/platform/db/migrations/index.js';
import { listenForTokenChanges, TOKENS_CHANGED_CHANNEL, type ChangeSignal } from '../../server/platform/db/postgres-change-signal.js';
import { createTestSchema, postgresUnavailable, suiteTitle, type TestSchema } from './postgres-test-database.js';

const unavailable = await postgresUnavailable();

const waitFor = <T>(check: () => T | Promise<T>) => vi.waitFor(check, { timeout: 10_000, interval: 20 });

describe.skipIf(unavailable !== undefined)(suiteTitle('the token-change signal', unavailable), () => {
  let schema: TestSchema;
  let database: DatabaseHandle;
  let signal: ChangeSignal;
  let url: string;

  beforeAll(async () => {
    schema = await createTestSchema();
    const withName = new URL(schema.url);
    withName.searchParams.set('application_name', schema.name);
    url = withName.toString();
    database = await openDatabase(url);
    await migrateToLatest(database.db);
    if ('0024-tokens-change-signal' in MIGRATIONS) await m0024.down(database.db); // the first test installs it
    const loaded = (await import('pg')) as unknown as typeof import('pg') & { default?: typeof import('pg') };
    const pg = loaded.default ?? loaded;
    const signalUrl = new URL(schema.url);
    signalUrl.searchParams.set('application_name', `${schema.name}_signal`);
    signal = listenForTokenChanges(pg, { connectionString: signalUrl.toString() }, { retryMs: 50, recheckMs: 50 });
  });

  afterAll(async () => {
    try {
      await signal?.close();
      await database?.close();
    } finally {
      await schema?.drop();
    }
  });

  const notify = (admin: Pool, payload: string) => admin.query('SELECT pg_notify($1, $2)', [TOKENS_CHANGED_CHANNEL, payload]);

  it('moves at every read until the trigger is installed, then only for changes', async () => {
    expect(signal.trusted()).toBe(false);
    expect(signal.version()).not.toBe(signal.version());
    await m0024.up(database.db);
    await waitFor(() => expect(signal.trusted()).toBe(true));
    const before = signal.version();
    expect(signal.version()).toBe(before);
    await createToken(database.db, { scopes: ['read'], tier: 'authenticated', userId: 'u1', ttlSeconds: 60 });
    await waitFor(() => expect(signal.version()).toBe(before + 1));
  });

  it('ignores rolled-back changes and other schemas’ notifications', async () => {
    const before = signal.version();
    const client = await schema.admin.connect();
    try {
      await client.query('BEGIN');
      await client.query(`UPDATE ${schema.name}.tokens SET label = 'x'`);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    await notify(schema.admin, 'some_other_schema');
    // Notifications arrive in commit order: once this one has, the two before it would have too.
    await notify(schema.admin, schema.name);
    await waitFor(() => expect(signal.version()).toBeGreaterThan(before));
    expect(signal.version()).toBe(before + 1);
  });

  it('listens again after its connection is killed', async () => {
    // The signal's one connection.
    const listening = async (): Promise<number[]> =>
      (
        await schema.admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = $1`, [`${schema.name}_signal`])
      ).rows.map((row) => row.pid);
    const [first] = await listening();
    expect(first).toBeDefined();
    await schema.admin.query('SELECT pg_terminate_backend($1)', [first]);
    await waitFor(async () => {
      const now = await listening();
      expect(now.length).toBe(1);
      expect(now[0]).not.toBe(first);
      expect(signal.trusted()).toBe(true);
    });
    const before = signal.version();
    await notify(schema.admin, schema.name);
    await waitFor(() => expect(signal.version()).toBe(before + 1));
  });

  it('a token revoked by another process is refused by an instance’s cache', async () => {
    const instance = await openDatabase(url);
    const revoker = await openDatabase(url);
    try {
      const verifier = new ServiceTokenVerifier(instance.db, instance.externalWrites);
      const { token, info } = await createToken(revoker.db, { scopes: ['read'], tier: 'authenticated', userId: 'u2', ttlSeconds: 3600 });
      await waitFor(() => expect(instance.externalWrites()).toBe(instance.externalWrites()));
      expect(await verifier.verify(token)).toMatchObject({ userId: 'u2' });
      await revokeTokenById(revoker.db, info.id);
      await waitFor(async () => expect(await verifier.verify(token)).toBeUndefined());
    } finally {
      await revoker.close();
      await instance.close();
    }
  });
});
