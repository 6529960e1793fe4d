import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMIT_POLICY, type RateLimitPolicy } from '../../../src/rate-limit/policy.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

/** Small limits so tests stay fast: tiers 5/8, 10/20, 20/30 and groups 3/4 (minute/hour). */
const policy: RateLimitPolicy = {
  tiers: {
    anonymous: [
      { seconds: 60, max: 5 },
      { seconds: 3600, max: 8 },
    ],
    authenticated: [
      { seconds: 60, max: 10 },
      { seconds: 3600, max: 20 },
    ],
    premium: [
      { seconds: 60, max: 20 },
      { seconds: 3600, max: 30 },
    ],
  },
  groups: {
    recommendations: [
      { seconds: 60, max: 3 },
      { seconds: 3600, max: 4 },
    ],
    analytics: [
      { seconds: 60, max: 3 },
      { seconds: 3600, max: 4 },
    ],
    rag: [
      { seconds: 60, max: 3 },
      { seconds: 3600, max: 4 },
    ],
  },
};

let t: TestApp;
let clock = Date.UTC(2026, 0, 1, 10, 0, 0);
afterEach(() => t.close());

async function appWith(rateLimit: RateLimitPolicy = policy): Promise<TestApp> {
  clock = Date.UTC(2026, 0, 1, 10, 0, 0);
  t = await createTestApp({
    rateLimit,
    now: () => clock,
    configure: (app) => {
      for (const url of ['/api/v1/ping', '/api/v1/analytics/a', '/api/v1/analytics/b', '/api/v1/recommendations/x']) {
        app.get(url, async () => ({ ok: true }));
      }
    },
  });
  return t;
}

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('rate limits', () => {
  it('limits anonymous callers per minute with counting-down headers and a spec 429', async () => {
    await appWith();
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await get('/api/v1/ping');
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-ratelimit-limit']).toBe('5');
      remaining.push(String(response.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const limited = await get('/api/v1/ping');
    expect(limited.statusCode).toBe(429);
    const body = limited.json();
    expect(body).toMatchObject({ error: 'Rate limit exceeded', status_code: 429, request_id: limited.headers['x-request-id'] });
    expect(body.retry_after).toBe(60);
    expect(limited.headers['retry-after']).toBe('60');
    expect(Number(limited.headers['x-ratelimit-reset'])).toBe(clock / 1000 + 60);
  });

  it('enforces the hour window after minute windows reset', async () => {
    await appWith();
    for (let i = 0; i < 5; i++) expect((await get('/api/v1/ping')).statusCode).toBe(200);
    clock += 60_000;
    for (let i = 0; i < 3; i++) expect((await get('/api/v1/ping')).statusCode).toBe(200);
    const limited = await get('/api/v1/ping');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['x-ratelimit-limit']).toBe('8');
    expect(limited.json().retry_after).toBe(3600 - 60);
  });

  it('gives authenticated and premium tokens their own, larger budgets', async () => {
    await appWith();
    const user = await t.token(['read'], { userId: 'u' });
    const premium = await t.token(['read'], { userId: 'p', tier: 'premium' });
    const first = await get('/api/v1/ping', { authorization: `Bearer ${user}` });
    expect(first.headers['x-ratelimit-limit']).toBe('10');
    const prem = await get('/api/v1/ping', { authorization: `Bearer ${premium}` });
    expect(prem.headers['x-ratelimit-limit']).toBe('20');
    for (let i = 0; i < 9; i++) expect((await get('/api/v1/ping', { authorization: `Bearer ${user}` })).statusCode).toBe(200);
    expect((await get('/api/v1/ping', { authorization: `Bearer ${user}` })).statusCode).toBe(429);
    // The anonymous budget of the same client address is untouched.
    expect((await get('/api/v1/ping')).statusCode).toBe(200);
  });

  it('shares a group limit across all routes of the group', async () => {
    await appWith();
    expect((await get('/api/v1/analytics/a')).statusCode).toBe(200);
    expect((await get('/api/v1/analytics/b')).statusCode).toBe(200);
    const third = await get('/api/v1/analytics/a');
    expect(third.statusCode).toBe(200);
    expect(third.headers['x-ratelimit-limit']).toBe('3');
    expect(third.headers['x-ratelimit-remaining']).toBe('0');
    expect((await get('/api/v1/analytics/b')).statusCode).toBe(429);
    // Other groups and ungrouped routes still answer.
    expect((await get('/api/v1/recommendations/x')).statusCode).toBe(200);
    expect((await get('/api/v1/ping')).statusCode).toBe(200);
  });

  it('throttles a stream of bad tokens as anonymous (before the 401)', async () => {
    await appWith();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push((await get('/api/v1/ping', { authorization: `Bearer rsv_bad${i}` })).statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
  });

  it('never limits health, metrics or docs', async () => {
    await appWith();
    for (let i = 0; i < 12; i++) {
      for (const url of ['/health', '/api/v1/health', '/metrics', '/docs/json']) {
        const response = await get(url);
        expect(response.statusCode, url).toBe(200);
        expect(response.headers['x-ratelimit-limit']).toBeUndefined();
      }
    }
  });

  it('cannot be overshot by a concurrent burst', async () => {
    await appWith();
    const responses = await Promise.all(Array.from({ length: 40 }, () => get('/api/v1/ping')));
    expect(responses.filter((r) => r.statusCode === 200)).toHaveLength(5);
    expect(responses.filter((r) => r.statusCode === 429)).toHaveLength(35);
  });

  it('keys anonymous callers by address and ignores X-Forwarded-For unless a proxy is trusted', async () => {
    await appWith();
    for (let i = 0; i < 5; i++) {
      expect((await get('/api/v1/ping', { 'x-forwarded-for': `203.0.113.${i}` })).statusCode).toBe(200);
    }
    expect((await get('/api/v1/ping', { 'x-forwarded-for': '203.0.113.99' })).statusCode).toBe(429);
    await t.close();
    t = await createTestApp({ rateLimit: policy, trustProxy: true, configure: (app) => void app.get('/api/v1/ping', async () => ({})) });
    for (let i = 0; i < 6; i++) {
      expect((await get('/api/v1/ping', { 'x-forwarded-for': `203.0.113.${i}` })).statusCode).toBe(200);
    }
  });

  it('uses the spec numbers by default', () => {
    expect(DEFAULT_RATE_LIMIT_POLICY.tiers.anonymous.map((w) => w.max)).toEqual([20, 1000]);
    expect(DEFAULT_RATE_LIMIT_POLICY.tiers.authenticated.map((w) => w.max)).toEqual([60, 2000]);
    expect(DEFAULT_RATE_LIMIT_POLICY.tiers.premium.map((w) => w.max)).toEqual([120, 5000]);
    expect(DEFAULT_RATE_LIMIT_POLICY.groups.recommendations.map((w) => w.max)).toEqual([30, 500]);
    expect(DEFAULT_RATE_LIMIT_POLICY.groups.analytics.map((w) => w.max)).toEqual([20, 200]);
    expect(DEFAULT_RATE_LIMIT_POLICY.groups.rag.map((w) => w.max)).toEqual([10, 100]);
  });
});
