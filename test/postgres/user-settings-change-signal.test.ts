/**
 * Migration 0030's notifications, through two real apps on one PostgreSQL schema: a user's
 * settings read through instance b (and so cached there), then changed through instance a,
 * are read changed through b at once — an experiments opt-out made on one instance is not
 * ignored by another that had the user's settings cached (it used to be, until evicted).
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../server/app.js';
import { createToken } from '../../server/platform/auth/token.service.js';
import { openDatabase, type DatabaseHandle } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { createTestSchema, postgresUnavailable, suiteTitle, type TestSchema } from './postgres-test-database.js';

const unavailable = await postgresUnavailable();
const USER = 'settings-user';

describe.skipIf(unavailable !== undefined)(suiteTitle("a user's settings changed on one instance reach the others", unavailable), () => {
  let schema: TestSchema;
  const handles: DatabaseHandle[] = [];
  const apps: FastifyInstance[] = [];
  let headers: Record<string, string>;

  beforeAll(async () => {
    schema = await createTestSchema();
    const setup = await openDatabase(schema.url);
    await migrateToLatest(setup.db);
    const { token } = await createToken(setup.db, { scopes: ['read', 'write'], tier: 'authenticated', userId: USER, ttlSeconds: 600 });
    headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    await setup.close();
    for (let i = 0; i < 2; i += 1) {
      const database = await openDatabase(schema.url);
      handles.push(database);
      const app = await buildApp({ database, rateLimit: null });
      await app.ready();
      apps.push(app);
    }
  }, 60_000);

  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const handle of handles) await handle.close();
    await schema?.drop();
  });

  it('an opt-out and a reason language set through a are read through b, which had them cached', async () => {
    const [a, b] = apps as [FastifyInstance, FastifyInstance];
    const read = async (app: FastifyInstance) => {
      const response = await app.inject({ method: 'GET', url: '/api/v1/settings', headers });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<{ data: { experiments_opt_out: boolean; reason_language: string | null } }>().data;
    };
    expect(await read(b)).toMatchObject({ experiments_opt_out: false, reason_language: null });
    const patched = await a.inject({
      method: 'PATCH',
      url: '/api/v1/settings',
      headers,
      payload: { experiments_opt_out: true, reason_language: 'de' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    await vi.waitFor(async () => expect(await read(b)).toMatchObject({ experiments_opt_out: true, reason_language: 'de' }), {
      timeout: 10_000,
      interval: 50,
    });
  });
});
