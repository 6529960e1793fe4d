/**
 * Made-up Mastodon tokens cannot make the service call an instance once per request
 * without limit: a token the cache cannot answer is charged to the client's address in the
 * anonymous tier before verify_credentials is asked (server/platform/plugins/rate-limit.ts,
 * tokenCheckLimiter), so past the anonymous limit the answer is 429 and the instance is
 * not asked. A failed token is charged once, not again as an anonymous request; a verified
 * token is charged to its address once, then only to its own user.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMIT_POLICY } from '../../../src/rate-limit/policy.js';
import type { SocialServices } from '../../../server/platform/social/social.service.js';
import { startMastodonInstance, testSocialServices, withSocial, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

const VERIFY = '/api/v1/accounts/verify_credentials';
const ANONYMOUS_PER_MINUTE = DEFAULT_RATE_LIMIT_POLICY.tiers.anonymous[0]!.max;

let instance: MastodonTestInstance;
let social: SocialServices;
let t: TestApp;

beforeAll(async () => {
  instance = await startMastodonInstance({ statuses: 10 });
  social = testSocialServices();
  // The limiter's windows are aligned to the clock's minutes: a run crossing a minute's end (a
  // loaded machine) had two more requests allowed. Its clock stands still in mid-minute.
  const midMinute = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
  t = await createTestApp({ ...withSocial(social), rateLimit: DEFAULT_RATE_LIMIT_POLICY, now: () => midMinute });
});

afterAll(async () => {
  await t.close();
  await social.close();
  await instance.close();
});

function get(token: string, remoteAddress: string) {
  return t.app.inject({
    method: 'GET',
    url: '/api/v1/recommendations?user_id=someone',
    remoteAddress,
    headers: { authorization: `Bearer ${token}`, 'x-social-instance': instance.host },
  });
}

describe('verifications of unknown tokens are rate-limited by address', () => {
  it('past the anonymous limit, distinct made-up tokens get 429 without reaching the instance', async () => {
    const before = instance.count(VERIFY);
    const statuses: number[] = [];
    const attempts = ANONYMOUS_PER_MINUTE + 15;
    for (let i = 0; i < attempts; i++) {
      const response = await get(`made-up-token-${i}`, '198.51.100.7');
      statuses.push(response.statusCode);
      if (i === 0) expect(response.headers['x-ratelimit-limit']).toBe(String(ANONYMOUS_PER_MINUTE));
      if (response.statusCode === 429) expect(response.json()).toMatchObject({ error: 'Rate limit exceeded', status_code: 429 });
    }
    expect(statuses).toEqual([...new Array<number>(ANONYMOUS_PER_MINUTE).fill(401), ...new Array<number>(15).fill(429)]);
    expect(instance.count(VERIFY) - before).toBe(ANONYMOUS_PER_MINUTE);
  });

  it('a refused token is remembered: asking again with it costs no instance call', async () => {
    const before = instance.count(VERIFY);
    expect((await get('made-up-and-repeated', '198.51.100.8')).statusCode).toBe(401);
    expect((await get('made-up-and-repeated', '198.51.100.8')).statusCode).toBe(401);
    expect(instance.count(VERIFY) - before).toBe(1);
  });

  it('a verified token costs its address one check, then is limited as its user', async () => {
    const token = instance.issueToken(0);
    const userId = `${instance.accountIdOf(token)}@${instance.host}`;
    const address = '198.51.100.9';
    for (let i = 0; i < ANONYMOUS_PER_MINUTE - 1; i++) expect((await get(`spent-${i}`, address)).statusCode).toBe(401);
    const own = (n: number) =>
      t.app.inject({
        method: 'GET',
        url: `/api/v1/recommendations?user_id=${encodeURIComponent(userId)}&limit=${n}`,
        remoteAddress: address,
        headers: { authorization: `Bearer ${token}`, 'x-social-instance': instance.host },
      });
    // The last anonymous slot pays for the check; later requests are the user's own.
    for (let n = 1; n <= 5; n++) expect((await own(n)).statusCode).toBe(200);
    expect((await get('one-more-made-up', address)).statusCode).toBe(429);
  });
});
