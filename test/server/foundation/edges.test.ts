/**
 * The edges a hostile client tried (issue 9): every answer the process writes, parser
 * and router errors included, is the spec's error body with the usual headers; rate
 * limits follow the matched route whatever the spelling of the path; slow requests are
 * cut; query integers are plain decimals; CORS lets browser clients in.
 */
import type { AddressInfo } from 'node:net';
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scalePolicy, DEFAULT_RATE_LIMIT_POLICY } from '../../../src/rate-limit/policy.js';
import { DEFAULT_HTTP_LIMITS } from '../../../server/config.js';
import { SERVICE_VERSION } from '../../../server/platform/version.js';
import { makeStatus } from '../../helpers/mastodon-fixtures.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import {
  encodeRequest,
  openSocket,
  ResponseReader,
  sendRaw,
  type RawOutcome,
  type RawResponse,
} from '../../reliability/support/raw-http.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function responseOf(outcome: RawOutcome): RawResponse {
  if (outcome.kind !== 'response') throw new Error(`expected a response, got ${outcome.kind}: ${JSON.stringify(outcome)}`);
  return outcome.response;
}

/** The spec's error body and the headers every response carries. */
function expectSpecError(response: RawResponse, status: number): Record<string, unknown> {
  expect(response.status).toBe(status);
  const body = JSON.parse(response.body.toString('utf8')) as Record<string, unknown>;
  expect(body).toMatchObject({ status_code: status, error: expect.any(String), message: expect.any(String) });
  expect(body.request_id).toBe(response.headers['x-request-id']);
  expect(response.headers['x-request-id']).toMatch(/^[\w.:-]+$/);
  expect(response.headers['x-service-version']).toBe(SERVICE_VERSION);
  expect(response.headers['x-api-version']).toBe('v1');
  expect(response.headers['x-process-time']).toMatch(/^\d+\.\d+$/);
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
  expect(response.headers['x-xss-protection']).toBe('1; mode=block');
  expect(response.headers['content-security-policy']).toContain("default-src 'self'");
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  return body;
}

describe('parser and router errors', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({
      http: { ...DEFAULT_HTTP_LIMITS, requestTimeoutMs: 600, headersTimeoutMs: 600, maxHeaderBytes: 4096 },
      configure: (app) => {
        app.post('/api/v1/test/echo', { schema: { body: Type.Object({ name: Type.String() }) } }, async (request) => request.body);
      },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  it('answers a malformed request line with the spec body, not "Client Error"', async () => {
    const response = responseOf(await sendRaw(port, Buffer.from('GARBAGE\r\n\r\n')));
    const body = expectSpecError(response, 400);
    expect(body.request_id).toMatch(UUID);
    expect(response.body.toString()).not.toContain('Client Error');
  });

  it('answers headers over the limit with 431 in the spec body', async () => {
    const response = responseOf(await sendRaw(port, { method: 'GET', target: '/health', headers: [['X-Big', 'a'.repeat(8000)]] }));
    expectSpecError(response, 431);
  });

  it('answers a path that is not valid percent-encoding with 400 in the spec body', async () => {
    const response = responseOf(await sendRaw(port, { method: 'GET', target: '/api/v1/posts/%E0%A4%A' }));
    expectSpecError(response, 400);
  });

  it('answers an over-long path parameter with 414 in the spec body', async () => {
    const response = responseOf(await sendRaw(port, { method: 'GET', target: `/api/v1/posts/${'1'.repeat(500)}` }));
    expectSpecError(response, 414);
  });

  it("answers an HTTP/1.1 request without Host with 400 in the spec body, not Node's empty one", async () => {
    const response = responseOf(await sendRaw(port, { method: 'GET', target: '/api/v1/posts', host: null }));
    expect(expectSpecError(response, 400).message).toMatch(/Host header/);
  });

  it("answers an unsupported Expect with 417 in the spec body, not Node's empty one", async () => {
    const response = responseOf(
      await sendRaw(port, {
        method: 'POST',
        target: '/api/v1/test/echo',
        headers: [
          ['Expect', 'something-else'],
          ['Content-Type', 'application/json'],
        ],
        body: '{"name":"x"}',
      }),
    );
    expectSpecError(response, 417);
  });

  it("answers an OPTIONS that is not a CORS preflight without the CORS plugin's text/plain 400", async () => {
    const response = responseOf(await sendRaw(port, { method: 'OPTIONS', target: '/api/v1/posts' }));
    expect(response.status).toBe(204);
    expect(response.headers['x-request-id']).toMatch(UUID);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('refuses a leap-second date-time that Date cannot hold with 400 naming the field, not a 500', async () => {
    const headers = await t.adminHeaders();
    const status = makeStatus({ n: 7, author: 'a1' });
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/posts',
      headers,
      payload: { ...status, created_at: '2026-06-30T23:59:60Z' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: 'Invalid request', field: 'created_at', status_code: 400 });
  });

  it('refuses an edited_at that is not a date-time with 400 naming the field, not a 500', async () => {
    const headers = await t.adminHeaders();
    const status = makeStatus({ n: 8, author: 'a1' });
    for (const [url, payload, field] of [
      ['/api/v1/posts', { ...status, edited_at: 'x' }, 'edited_at'],
      ['/api/v1/posts/batch', { statuses: [{ ...status, edited_at: 'yesterday' }] }, 'statuses[0].edited_at'],
    ] as const) {
      const response = await t.app.inject({ method: 'POST', url, headers, payload });
      expect(response.statusCode, url).toBe(400);
      expect(response.json(), url).toMatchObject({ error: 'Invalid request', field, status_code: 400 });
    }
  });

  it('cuts a slow body with 408 in the spec body and closes the connection', async () => {
    const socket = await openSocket(port);
    const reader = new ResponseReader(socket, 'POST');
    socket.write('POST /api/v1/test/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na');
    const outcome = await reader.next(5_000);
    socket.destroy();
    expectSpecError(responseOf(outcome), 408);
  });

  it('closes the connection after answering 401 before a body arrived, instead of reading it forever', async () => {
    const socket = await openSocket(port);
    const reader = new ResponseReader(socket, 'POST');
    socket.write('POST /api/v1/interactions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{');
    const response = responseOf(await reader.next(5_000));
    expectSpecError(response, 401);
    expect(response.headers.connection).toBe('close');
    const closed = await new Promise<boolean>((resolve) => {
      if (socket.destroyed || socket.readableEnded) return resolve(true);
      socket.once('close', () => resolve(true));
      setTimeout(() => resolve(false), 3_000);
    });
    socket.destroy();
    expect(closed).toBe(true);
  });
});

describe('401 challenges', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('carries WWW-Authenticate: Bearer, naming an invalid token as such', async () => {
    const missing = await t.app.inject({ method: 'GET', url: '/api/v1/recommendations?user_id=u1' });
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="recsvc"');
    const invalid = await t.app.inject({
      method: 'GET',
      url: '/api/v1/recommendations?user_id=u1',
      headers: { authorization: 'Bearer nope' },
    });
    expect(invalid.statusCode).toBe(401);
    expect(invalid.headers['www-authenticate']).toBe('Bearer realm="recsvc", error="invalid_token"');
  });
});

describe('rate limits follow the matched route, whatever the spelling', () => {
  // Anonymous: 2 per minute; recommendations group: 3 per minute.
  const policy = scalePolicy(DEFAULT_RATE_LIMIT_POLICY, 0.1);
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({ rateLimit: policy });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  /** Requests from a fresh anonymous address each time would defeat the test: all come from 127.0.0.1. */
  async function statuses(targets: string[], headers: Array<[string, string]> = []): Promise<number[]> {
    const out: number[] = [];
    for (const target of targets) out.push(responseOf(await sendRaw(port, { method: 'GET', target, headers })).status);
    return out;
  }

  it('counts encoded, absolute-form and unmatched spellings in the same anonymous budget', async () => {
    const anonymousPerMinute = policy.tiers.anonymous[0]!.max;
    const spellings = [
      '/%61pi/v1/posts',
      '/api/v%31/posts',
      `http://127.0.0.1:${port}/api/v1/posts`,
      '/api/v1/%70osts',
      '/api/v1/no-such-route',
      '/nowhere/at/all',
    ];
    const results = await statuses(spellings);
    // The first `anonymousPerMinute` pass (200 or 404), every later one is throttled.
    expect(results.slice(0, anonymousPerMinute).every((status) => status !== 429)).toBe(true);
    expect(results.slice(anonymousPerMinute)).toEqual(spellings.slice(anonymousPerMinute).map(() => 429));
    const throttled = responseOf(await sendRaw(port, { method: 'GET', target: '/%61pi/v1/posts' }));
    const body = expectSpecError(throttled, 429);
    expect(body.retry_after).toBeGreaterThan(0);
    expect(throttled.headers['retry-after']).toBe(String(body.retry_after));
  });

  it('throttles a bad token through an encoded spelling of a group route', async () => {
    const results = await statuses(
      ['/%61pi/v1/recommendations?user_id=u', '/api/v%31/%72ecommendations?user_id=u'],
      [['Authorization', 'Bearer forged']],
    );
    // The anonymous budget of this address is already spent by the test above.
    expect(results).toEqual([429, 429]);
  });

  it('applies the group limit to an encoded spelling of a recommendations route', async () => {
    const token = await t.token(['read', 'write', 'admin']);
    const groupPerMinute = policy.groups.recommendations[0]!.max;
    const targets = Array.from({ length: groupPerMinute + 1 }, (_, i) =>
      i % 2 === 0 ? '/api/v1/%72ecommendations?user_id=u1' : `http://localhost/api/v%31/recommendations?user_id=u1`,
    );
    const results = await statuses(targets, [['Authorization', `Bearer ${token}`]]);
    expect(results.slice(0, groupPerMinute).every((status) => status === 200)).toBe(true);
    expect(results.at(-1)).toBe(429);
  });

  it('never limits health, metrics or the docs, however often they are called', async () => {
    expect(await statuses(['/health', '/health', '/health', '/metrics', '/metrics', '/metrics'])).toEqual([200, 200, 200, 200, 200, 200]);
  });
});

describe('query integers are plain decimals', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it.each(['0x28', '+40', ' 40', '4e1', '40.0', '40abc', ''])('limit=%j is 400 naming limit', async (value) => {
    const headers = await t.adminHeaders();
    for (const url of [
      `/api/v1/recommendations?user_id=u1&limit=${encodeURIComponent(value)}`,
      `/api/v1/posts?limit=${encodeURIComponent(value)}`,
    ]) {
      const response = await t.app.inject({ method: 'GET', url, headers });
      expect(response.statusCode, url).toBe(400);
      expect(response.json(), url).toMatchObject({ error: 'Invalid request', field: 'limit', status_code: 400 });
    }
  });

  it('still takes a plain integer', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/recommendations?user_id=u1&limit=40',
      headers: await t.adminHeaders(),
    });
    expect(response.statusCode).toBe(200);
  });
});

describe('CORS for browser clients', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ rateLimit: DEFAULT_RATE_LIMIT_POLICY });
  });
  afterAll(() => t.close());

  /** A comma-separated header as a list of lowercase names. */
  const names = (value: unknown): string[] =>
    String(value)
      .split(',')
      .map((name) => name.trim().toLowerCase());

  it('answers a preflight from another origin, allowing the headers clients send', async () => {
    const response = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/recommendations?user_id=u1',
      headers: {
        origin: 'https://elk.zone',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization,x-social-instance,x-request-id,content-type,accept-language,idempotency-key',
      },
    });
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    const allowed = names(response.headers['access-control-allow-headers']);
    // Idempotency-Key: clients send it when posting statuses, and the proxy forwards it to the instance.
    for (const header of ['authorization', 'content-type', 'x-social-instance', 'x-request-id', 'accept-language', 'idempotency-key'])
      expect(allowed).toContain(header);
    expect(String(response.headers['access-control-allow-methods'])).toContain('POST');
    // Preflights are not charged to the caller's budget.
    expect(response.headers['x-ratelimit-remaining']).toBeUndefined();
  });

  it('exposes Link, the rate-limit headers, X-Request-ID, Retry-After and X-Recsvc-Degraded on an actual request', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/posts', headers: { origin: 'https://phanpy.social' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    const exposed = names(response.headers['access-control-expose-headers']);
    // X-Recsvc-Degraded: a browser client could not otherwise tell a timeline page from the service's store.
    for (const header of [
      'link',
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
      'x-request-id',
      'retry-after',
      'x-recsvc-degraded',
    ])
      expect(exposed).toContain(header);
  });

  it('allows only the configured origins when a list is given', async () => {
    const listed = await createTestApp({ corsOrigins: ['https://elk.zone'] });
    try {
      const preflight = (origin: string) =>
        listed.app.inject({ method: 'OPTIONS', url: '/api/v1/posts', headers: { origin, 'access-control-request-method': 'GET' } });
      expect((await preflight('https://elk.zone')).headers['access-control-allow-origin']).toBe('https://elk.zone');
      expect((await preflight('https://evil.example')).headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await listed.close();
    }
  });
});

describe('load shedding and shutdown', () => {
  it('answers 503 in the spec body with Retry-After under memory pressure, but keeps health answering', async () => {
    const t = await createTestApp({
      loadShedding: { maxEventLoopDelayMs: 0, maxHeapUsedBytes: 1, maxRssBytes: 0, retryAfterSeconds: 7, sampleIntervalMs: 10 },
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const shed = await t.app.inject({ method: 'GET', url: '/api/v1/posts' });
      expect(shed.statusCode).toBe(503);
      expect(shed.headers['retry-after']).toBe('7');
      expect(shed.json()).toMatchObject({ error: 'Service unavailable', status_code: 503, request_id: shed.headers['x-request-id'] });
      expect(shed.headers['x-content-type-options']).toBe('nosniff');
      expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it("answers a request arriving during shutdown with 503 in the spec body, not fastify's", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const t = await createTestApp({
      configure: (app) => {
        app.get('/api/v1/test/slow', async () => {
          await held;
          return { ok: true };
        });
      },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as AddressInfo).port;
    const socket = await openSocket(port);
    const reader = new ResponseReader(socket, 'GET');
    // The connection is busy with a slow request when shutdown begins, so it stays open;
    // a second request written on it then arrives during shutdown.
    socket.write(encodeRequest(port, { method: 'GET', target: '/api/v1/test/slow', close: false }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = t.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write(encodeRequest(port, { method: 'GET', target: '/api/v1/posts', close: false }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    expect(responseOf(await reader.next(5_000)).status).toBe(200);
    const second = responseOf(await reader.next(5_000));
    socket.destroy();
    await closing;
    const body = expectSpecError(second, 503);
    expect(body.error).toBe('Service unavailable');
    expect(second.headers['retry-after']).toBeDefined();
  });
});
