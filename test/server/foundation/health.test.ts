import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { openSqlite } from '../../../server/platform/db/connection.js';
import { migrateToLatest } from '../../../server/platform/db/migrate.js';
import { SERVICE_VERSION } from '../../../server/platform/version.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('health endpoints', () => {
  it('GET /health is healthy with a timestamp', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/health' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.status).toBe('healthy');
    expect(Math.abs(Date.parse(body.timestamp) - Date.now())).toBeLessThan(60_000);
  });

  it('GET /api/v1/health reports components and process resources', async () => {
    const body = (await t.app.inject({ method: 'GET', url: '/api/v1/health' })).json();
    expect(body.status).toBe('healthy');
    expect(body.version).toBe(SERVICE_VERSION);
    expect(body.components.database.status).toBe('connected');
    expect(body.components.database.latency_ms).toBeGreaterThanOrEqual(0);
    expect(body.components.redis.status).toBe('not_configured');
    expect(body.components.rag_service).toEqual({ status: expect.any(String), chunks_loaded: expect.any(Number) });
    expect(Number.isInteger(body.uptime_seconds)).toBe(true);
    expect(body.memory_usage_mb).toBeGreaterThan(1);
    expect(typeof body.cpu_percent).toBe('number');
  });

  it('degrades when the database round trip fails', async () => {
    const database = openSqlite(':memory:');
    await migrateToLatest(database.db);
    const broken = {
      ...database,
      ping: () => {
        throw new Error('disk I/O error');
      },
    };
    const app = await buildApp({ database: broken, rateLimit: null });
    try {
      const body = (await app.inject({ method: 'GET', url: '/api/v1/health' })).json();
      expect(body.status).toBe('degraded');
      expect(body.components.database).toMatchObject({ status: 'error', message: 'disk I/O error' });
    } finally {
      await app.close();
      await database.close();
    }
  });
});

describe('OpenAPI explorer', () => {
  it('serves the document generated from the route schemas', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/docs/json' });
    expect(response.statusCode).toBe(200);
    const doc = response.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.paths['/api/v1/health'].get.responses['200'].content['application/json'].schema.properties.components).toBeDefined();
  });

  it('gives every operation an operationId, summary and tags', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json();
    const operations = Object.entries(
      doc.paths as Record<string, Record<string, { operationId?: string; summary?: string; tags?: string[] }>>,
    ).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })));
    expect(operations.length).toBeGreaterThan(3);
    for (const { where, op } of operations) {
      expect(op.operationId, where).toBeTruthy();
      expect(op.summary, where).toBeTruthy();
      expect(op.tags?.length, where).toBeGreaterThan(0);
    }
    const ids = operations.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('serves the explorer page and its same-origin assets under the CSP', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'");
    const scripts = [...page.body.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    expect(page.body).not.toMatch(/<script>(?!\s*<\/script>)/);
    for (const src of scripts) {
      expect(src.startsWith('http')).toBe(false);
      const asset = await t.app.inject({ method: 'GET', url: new URL(src, 'http://x/docs/').pathname });
      expect(asset.statusCode, src).toBe(200);
    }
  });
});
