import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_VERSION } from '../../../server/platform/version.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    bodyLimit: 256,
    configure: (app) => {
      app.post(
        '/api/v1/test/echo',
        { schema: { body: Type.Object({ name: Type.String() }, { additionalProperties: false }) } },
        async (request) => request.body,
      );
      app.get('/api/v1/test/boom', async () => {
        throw new Error('secret internal detail');
      });
    },
  });
});
afterAll(() => t.close());

const cases: Array<[string, () => Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>, number]> = [
  ['a 200', () => t.app.inject({ method: 'GET', url: '/health' }), 200],
  ['a 404', () => t.app.inject({ method: 'GET', url: '/api/v1/does-not-exist' }), 404],
  ['a 400', () => t.app.inject({ method: 'POST', url: '/api/v1/test/echo', payload: { nope: 1 } }), 400],
  ['a 413', () => t.app.inject({ method: 'POST', url: '/api/v1/test/echo', payload: { name: 'x'.repeat(1000) } }), 413],
  [
    'a 415',
    () => t.app.inject({ method: 'POST', url: '/api/v1/test/echo', headers: { 'content-type': 'text/plain' }, payload: 'hi' }),
    415,
  ],
  ['a 500', () => t.app.inject({ method: 'GET', url: '/api/v1/test/boom' }), 500],
];

describe('headers on every response', () => {
  it.each(cases)('%s carries the spec headers', async (_name, send, status) => {
    const response = await send();
    expect(response.statusCode).toBe(status);
    expect(response.headers['x-request-id']).toMatch(UUID);
    expect(String(response.headers['x-process-time'])).toMatch(/^\d+\.\d+$/);
    expect(response.headers['x-service-version']).toBe(SERVICE_VERSION);
    expect(response.headers['x-api-version']).toBe('v1');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(response.headers['x-xss-protection']).toBe('1; mode=block');
    expect(String(response.headers['content-security-policy'])).toContain("default-src 'self'");
  });

  it.each(cases.slice(1))('%s has the error body with request_id equal to the header', async (_name, send, status) => {
    const response = await send();
    const body = JSON.parse(response.body) as Record<string, unknown>;
    expect(body.status_code).toBe(status);
    expect(typeof body.error).toBe('string');
    expect(typeof body.message).toBe('string');
    expect(body.request_id).toBe(response.headers['x-request-id']);
    expect(response.body).not.toContain('at ');
  });

  it('echoes a sane client X-Request-ID and replaces an unsafe one', async () => {
    const kept = await t.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'trace-abc.123' } });
    expect(kept.headers['x-request-id']).toBe('trace-abc.123');
    const replaced = await t.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'bad id\twith<script>' } });
    expect(replaced.headers['x-request-id']).toMatch(UUID);
  });

  it('hides internal error details behind a generic 500', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/test/boom' });
    const body = response.json<Record<string, unknown>>();
    expect(body.error).toBe('Internal server error');
    expect(response.body).not.toContain('secret internal detail');
  });

  it('names the unknown body field in a 400', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/api/v1/test/echo', payload: { name: 'a', nmae: 'typo' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: 'Invalid request', field: 'nmae' });
  });

  it('says which type a field must have', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/api/v1/test/echo', payload: { name: 5 } });
    expect(response.json()).toMatchObject({ status_code: 400, field: 'name', message: 'name must be a string' });
  });

  it('answers malformed JSON with a 400 error body', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ status_code: 400, error: 'Invalid request' });
  });

  it('returns the 404 body for unknown routes outside /api/v1 too', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/nowhere?x=1' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ error: 'Resource not found', message: 'No route for GET /nowhere' });
  });
});
