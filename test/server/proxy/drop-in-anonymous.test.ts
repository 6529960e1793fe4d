/**
 * Drop-in mode as a Mastodon web client uses it before and after login:
 * - logged out, the public and tag timelines answer as the instance answers them anonymously
 *   (no token sent to it, nothing woven in, the Link on the service), where they were 401;
 *   the home timeline still needs a token, and a bad token is still 401;
 * - Mastodon API calls through the service (forwarded, proxied, timelines) are limited as
 *   Mastodon limits them, not by the service's per-minute tier, and show the instance's
 *   X-RateLimit-* headers; the service's own routes keep the tier's limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMIT_POLICY, type RateLimitPolicy } from '../../../src/rate-limit/policy.js';
import type { SocialServices } from '../../../server/platform/social/social.service.js';
import {
  startMastodonInstance,
  testSocialServices,
  withSocial,
  type Json,
  type MastodonTestInstance,
} from '../../helpers/mastodon-instance.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

/** The tier allows 3 calls a minute; Mastodon calls have 8 per 5 minutes of their own. */
const policy: RateLimitPolicy = {
  ...DEFAULT_RATE_LIMIT_POLICY,
  tiers: {
    anonymous: [{ seconds: 60, max: 3 }],
    authenticated: [{ seconds: 60, max: 3 }],
    premium: [{ seconds: 60, max: 3 }],
  },
  mastodon: [{ seconds: 300, max: 8 }],
};

let instance: MastodonTestInstance;
let social: SocialServices;
let t: TestApp;

beforeAll(async () => {
  instance = await startMastodonInstance({ statuses: 40 });
  social = testSocialServices({ defaultInstance: instance.host });
  t = await createTestApp({ ...withSocial(social), rateLimit: policy });
});

afterAll(async () => {
  await t.close();
  await social.close();
  await instance.close();
});

describe('logged out, in drop-in mode', () => {
  it('reads the public and tag timelines as the instance serves them anonymously', async () => {
    instance.resetCounts();
    const publicPage = await t.app.inject({ method: 'GET', url: '/api/v1/timelines/public?local=true&limit=5', remoteAddress: '10.0.0.1' });
    expect(publicPage.statusCode, publicPage.body).toBe(200);
    const statuses = publicPage.json<Json[]>();
    expect(statuses.map((status) => status.id)).toEqual(
      instance
        .publicTimeline({ local: true })
        .slice(0, 5)
        .map((status) => status.id),
    );
    expect(statuses.every((status) => status.is_recommendation === undefined)).toBe(true);
    const next = /<([^>]+)>; rel="next"/.exec(String(publicPage.headers.link))?.[1];
    expect(next && new URL(next).pathname).toBe('/api/v1/timelines/public');
    expect(next && Object.fromEntries(new URL(next).searchParams)).toMatchObject({ local: 'true', limit: '5', max_id: expect.any(String) });
    // Nothing was sent with credentials.
    expect(instance.requests.filter((seen) => seen.path === '/api/v1/timelines/public').map((seen) => seen.token)).toEqual([undefined]);

    const tagPage = await t.app.inject({ method: 'GET', url: '/api/v1/timelines/tag/rust?limit=5', remoteAddress: '10.0.0.1' });
    expect(tagPage.statusCode).toBe(200);
    expect(tagPage.json<Json[]>().map((status) => status.id)).toEqual(
      instance
        .publicTimeline({ tag: 'rust' })
        .slice(0, 5)
        .map((status) => status.id),
    );
  });

  it('still needs a token for the home timeline, and refuses a bad one everywhere', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/timelines/home', remoteAddress: '10.0.0.2' })).statusCode).toBe(401);
    const bad = await t.app.inject({
      method: 'GET',
      url: '/api/v1/timelines/public',
      headers: { authorization: 'Bearer not-a-token' },
      remoteAddress: '10.0.0.2',
    });
    expect(bad.statusCode).toBe(401);
  });
});

describe('limits in drop-in mode', () => {
  it("limit Mastodon calls as Mastodon does, with the instance's headers, and leave the service's own routes at the tier", async () => {
    const token = instance.issueToken(3);
    const headers = { authorization: `Bearer ${token}` };
    const calls = [
      '/api/v1/instance',
      '/api/v1/accounts/verify_credentials',
      '/api/v1/proxy/api/v1/instance',
      '/api/v1/timelines/home?limit=5',
      '/api/v1/timelines/public?limit=5',
      '/api/v2/instance',
    ];
    for (const url of calls) {
      const response = await t.app.inject({ method: 'GET', url, headers });
      expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
      // The instance's own limit (300 per window) is what the client sees, not the service's.
      expect(response.headers['x-ratelimit-limit'], url).toBe('300');
    }
    // Six calls, twice the tier's 3: the service's own routes still have all three.
    for (let i = 0; i < 3; i++) {
      const own = await t.app.inject({ method: 'GET', url: '/api/v1/recommendations/preferences', headers });
      expect(own.statusCode, own.body).not.toBe(429);
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/recommendations/preferences', headers })).statusCode).toBe(429);
    // And Mastodon calls have their own window: 8 per 5 minutes here.
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/instance', headers })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/instance', headers })).statusCode).toBe(200);
    const over = await t.app.inject({ method: 'GET', url: '/api/v1/instance', headers });
    expect(over.statusCode).toBe(429);
    expect(over.headers['x-ratelimit-limit']).toBe('8');
  });
});
