/**
 * `/api/v1/health` reports Redis when it is configured (status and a real round trip) and
 * degrades when Redis does not answer — at once, not after a timeout, and never as a 5xx;
 * and the settings: RECSVC_REDIS_URL checked, --cluster refused without it.
 */
import { createServer, type Server } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthRoutes } from '../../server/platform/health/health.routes.js';
import { createRedisServices, type RedisServices } from '../../server/platform/redis/redis-services.js';
import { CLUSTER_WITHOUT_REDIS_MESSAGE, readRedisSettings } from '../../server/platform/redis/redis-settings.js';
import { flushPrefix, redisUnavailable, suiteTitle, TEST_REDIS_URL, testPrefix } from './redis-test-env.js';

const unavailable = await redisUnavailable();
const prefix = testPrefix('health');

async function healthOf(redis: RedisServices | undefined): Promise<{ statusCode: number; body: Record<string, any> }> {
  const app = Fastify();
  await app.register(healthRoutes, { ping: async () => 0.5, ...(redis ? { redis: () => redis.health() } : {}) });
  const response = await app.inject({ method: 'GET', url: '/api/v1/health' });
  await app.close();
  return { statusCode: response.statusCode, body: response.json() };
}

describe('Redis settings', () => {
  it('leaves Redis off without RECSVC_REDIS_URL', () => {
    expect(readRedisSettings({})).toEqual({ url: undefined, keyPrefix: 'recsvc:', cluster: false });
  });

  it('takes a redis:// URL, a prefix and cluster mode', () => {
    expect(readRedisSettings({ RECSVC_REDIS_URL: 'redis://127.0.0.1:6379/2', RECSVC_CLUSTER: '1', RECSVC_REDIS_PREFIX: 'recs:' })).toEqual({
      url: 'redis://127.0.0.1:6379/2',
      keyPrefix: 'recs:',
      cluster: true,
    });
  });

  it('refuses --cluster without Redis, and bad values, naming the setting', () => {
    expect(() => readRedisSettings({}, { cluster: true })).toThrow(CLUSTER_WITHOUT_REDIS_MESSAGE);
    expect(() => readRedisSettings({ RECSVC_CLUSTER: '1' })).toThrow(/--cluster\/RECSVC_CLUSTER=1 needs RECSVC_REDIS_URL/);
    expect(() => readRedisSettings({ RECSVC_CLUSTER: 'yes' })).toThrow(/RECSVC_CLUSTER must be 0 or 1/);
    expect(() => readRedisSettings({ RECSVC_REDIS_URL: 'http://x:1' })).toThrow(/must start with redis:\/\//);
    expect(() => readRedisSettings({ RECSVC_REDIS_URL: 'redis://:secret@x:1/abc' })).toThrow(/database number/);
    expect(() => readRedisSettings({ RECSVC_REDIS_URL: 'not a url :secret@' })).not.toThrow(/secret/);
  });

  it('reports redis as not_configured without it', async () => {
    const { body } = await healthOf(undefined);
    expect(body.status).toBe('healthy');
    expect(body.components.redis).toEqual({ status: 'not_configured' });
  });
});

describe.skipIf(unavailable !== undefined)(suiteTitle('health', unavailable), () => {
  let up: RedisServices;
  let down: RedisServices;
  let closedPort: Server;

  beforeAll(async () => {
    up = await createRedisServices({ url: TEST_REDIS_URL, keyPrefix: prefix });
    // A port that refuses connections: Redis "down" from the start.
    closedPort = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => closedPort.listen(0, '127.0.0.1', resolve));
    const port = (closedPort.address() as { port: number }).port;
    down = await createRedisServices({ url: `redis://127.0.0.1:${port}/0`, keyPrefix: prefix, connectTimeoutMs: 500 });
  });

  afterAll(async () => {
    await up?.close();
    await down?.close();
    await new Promise((resolve) => closedPort?.close(resolve));
    await flushPrefix(prefix);
  });

  it('reports a real round trip when Redis answers', async () => {
    const { statusCode, body } = await healthOf(up);
    expect(statusCode).toBe(200);
    expect(body.status).toBe('healthy');
    expect(body.components.redis.status).toBe('connected');
    expect(body.components.redis.latency_ms).toBeGreaterThan(0);
  });

  it('degrades, with a 200 and the reason, when Redis does not answer', async () => {
    const { statusCode, body } = await healthOf(down);
    expect(statusCode).toBe(200);
    expect(body.status).toBe('degraded');
    expect(body.components.redis.status).toBe('error');
    expect(body.components.redis.message).toMatch(/rate limits fail open/);
    expect(body.components.database.status).toBe('connected');
    // The other Redis users degrade too instead of failing.
    expect(await down.rateLimitStore.consume([{ key: 'k', limit: { seconds: 60, max: 1 } }], Date.now())).toEqual({
      allowed: true,
      windows: [],
    });
    expect(await down.tokenCache.get('mastodon.example', 'token')).toBeUndefined();
  });
});
