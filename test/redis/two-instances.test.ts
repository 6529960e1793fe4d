/**
 * Two app instances over one SQLite file and one Redis, as two `recsvc serve` behind a load
 * balancer: the rate limits count the requests to both (the recommendations group's limit
 * too), a social token verified by one is not checked again by the other, and with Redis
 * cut mid-run every request is still served (limits fail open, the token cache is bypassed),
 * with no 5xx, and health says so; once Redis is back the limits count again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMIT_POLICY, scalePolicy } from '../../src/rate-limit/policy.js';
import { createRedisServices, type RedisServices } from '../../server/platform/redis/redis-services.js';
import type { SocialServices } from '../../server/platform/social/social.service.js';
import { startMastodonInstance, testSocialServices, type MastodonTestInstance } from '../helpers/mastodon-instance.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import {
  flushPrefix,
  killFromServer,
  recordingLog,
  redisUnavailable,
  suiteTitle,
  TEST_REDIS_URL,
  testPrefix,
  until,
} from './redis-test-env.js';

const unavailable = await redisUnavailable();
const prefix = testPrefix('two-instances');
/**
 * Authenticated 6 per minute, the recommendations group 3 per minute; the anonymous tier,
 * which also pays for each new token's check with its instance, out of the way.
 */
const SCALED = scalePolicy(DEFAULT_RATE_LIMIT_POLICY, 0.1);
const POLICY = { ...SCALED, tiers: { ...SCALED.tiers, anonymous: [{ seconds: 60, max: 1_000 }] } };
/** The rate limits' clock: fixed inside a minute ahead of the real one, so no window ends (or expires in Redis) mid-test. */
const T = (Math.floor(Date.now() / 60_000) + 2) * 60_000 + 30_000;

interface Instance {
  t: TestApp;
  redis: RedisServices;
  social: SocialServices;
}

describe.skipIf(unavailable !== undefined)(suiteTitle('two instances sharing one Redis', unavailable), () => {
  let dir: string;
  let mastodon: MastodonTestInstance;
  let a: Instance;
  let b: Instance;
  const log = recordingLog();
  const statuses: number[] = [];

  async function start(): Promise<Instance> {
    // A long reconnection backoff keeps Redis "down" for the test once it cut the connections.
    const redis = await createRedisServices({ url: TEST_REDIS_URL, keyPrefix: prefix, log, minBackoffMs: 2_000 });
    const social = testSocialServices();
    social.identityProvider.useSharedCache(redis.tokenCache);
    const t = await createTestApp({
      dbPath: join(dir, 'recsvc.db'),
      rateLimit: POLICY,
      rateLimitStore: redis.rateLimitStore,
      now: () => T,
      identityProviders: [social.identityProvider],
    });
    return { t, redis, social };
  }

  async function recommendations(instance: Instance, token: string): Promise<number> {
    const userId = `${mastodon.accountIdOf(token)}@${mastodon.host}`;
    const response = await instance.t.app.inject({
      method: 'GET',
      url: `/api/v1/recommendations?user_id=${encodeURIComponent(userId)}`,
      headers: { authorization: `Bearer ${token}`, 'x-social-instance': mastodon.host },
    });
    statuses.push(response.statusCode);
    return response.statusCode;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'recsvc-redis-'));
    mastodon = await startMastodonInstance({ statuses: 5 });
    a = await start();
    b = await start();
  });

  afterAll(async () => {
    for (const instance of [a, b]) {
      await instance?.t.close();
      await instance?.social.close();
      await instance?.redis.close();
    }
    await mastodon?.close();
    rmSync(dir, { recursive: true, force: true });
    await flushPrefix(prefix);
  });

  it('counts the requests to both instances against one limit', async () => {
    const token = mastodon.issueToken(1);
    const answers = [await recommendations(a, token), await recommendations(b, token), await recommendations(a, token)];
    expect(answers).toEqual([200, 200, 200]);
    // The group's 3 per minute are spent, whichever instance is asked next.
    expect(await recommendations(b, token)).toBe(429);
    expect(await recommendations(a, token)).toBe(429);
  });

  it('verifies a social token once for both instances', async () => {
    const token = mastodon.issueToken(2);
    mastodon.resetCounts();
    expect(await recommendations(a, token)).toBe(200);
    expect(mastodon.count('/api/v1/accounts/verify_credentials')).toBe(1);
    expect(await recommendations(b, token)).toBe(200);
    expect(mastodon.count('/api/v1/accounts/verify_credentials')).toBe(1);
    expect(b.social.identityProvider.verifications).toBe(0);
  });

  it('serves every request while Redis is cut, and says so in health; counts again once it is back', async () => {
    const token = mastodon.issueToken(3);
    for (let i = 0; i < 3; i += 1) expect(await recommendations(i % 2 === 0 ? a : b, token)).toBe(200);
    expect(await recommendations(a, token)).toBe(429);

    for (const instance of [a, b]) await killFromServer(instance.redis.connection);
    await until(() => !a.redis.connection.isReady && !b.redis.connection.isReady);
    // Limits fail open; a token neither instance has seen is verified with its instance.
    const fresh = mastodon.issueToken(4);
    for (let i = 0; i < 6; i += 1) {
      expect(await recommendations(i % 2 === 0 ? a : b, token)).toBe(200);
      expect(await recommendations(i % 2 === 0 ? b : a, fresh)).toBe(200);
    }
    const health = await a.redis.health();
    expect(health.status).toBe('error');
    expect(health.message).toContain('rate limits fail open');
    expect(log.lines.filter((line) => line.includes('FAIL OPEN'))).toHaveLength(2);

    await until(() => a.redis.connection.isReady && b.redis.connection.isReady);
    expect((await b.redis.health()).status).toBe('connected');
    expect(await recommendations(b, token)).toBe(429);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
  });
});
