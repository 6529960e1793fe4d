/**
 * Redis wired into the app (AppOptions.redis): two instances over one SQLite file and one
 * Redis. A post stored or deleted through A is served, then no longer served, by B (B's
 * candidate pool and cached lists follow A's events), and /api/v1/health reports Redis.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RankingFanout } from '../../server/platform/redis/ranking-fanout.js';
import { createRedisServices, type RedisServices } from '../../server/platform/redis/redis-services.js';
import { makeStatus } from '../helpers/mastodon-fixtures.js';
import { parsePrometheusText } from '../helpers/prometheus.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { flushPrefix, redisUnavailable, suiteTitle, TEST_REDIS_URL, testPrefix, until } from './redis-test-env.js';

const unavailable = await redisUnavailable();
const prefix = testPrefix('app-wiring');

describe.skipIf(unavailable !== undefined)(suiteTitle('the app on Redis', unavailable), () => {
  let dir: string;
  const instances: Array<{ t: TestApp; redis: RedisServices }> = [];
  let a: TestApp;
  let b: TestApp;

  /** Every event A sent (a publish whose reply came late still counts as failed there, yet arrives). */
  const sentByA = (): number => instances[0]!.redis.fanout.published + instances[0]!.redis.fanout.publishFailures;

  async function served(t: TestApp): Promise<string[]> {
    const response = await t.app.inject({ url: '/api/v1/recommendations?user_id=u1&limit=40', headers: await t.userHeaders('u1') });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<Array<{ id: string }>>().map((status) => status.id);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'recsvc-redis-app-'));
    for (let i = 0; i < 2; i += 1) {
      const redis = await createRedisServices({ url: TEST_REDIS_URL, keyPrefix: prefix });
      instances.push({ t: await createTestApp({ dbPath: join(dir, 'recsvc.db'), redis }), redis });
    }
    [a, b] = instances.map((instance) => instance.t) as [TestApp, TestApp];
  });

  afterAll(async () => {
    for (const { t, redis } of instances) {
      await t.close();
      await redis.close();
    }
    rmSync(dir, { recursive: true, force: true });
    await flushPrefix(prefix);
  });

  it('serves on B the posts stored through A, and stops serving one deleted through A', async () => {
    const statuses = Array.from({ length: 6 }, (_, i) => makeStatus({ n: i + 1, ageHours: 6 - i }));
    const stored = await a.app.inject({
      method: 'POST',
      url: '/api/v1/posts/batch',
      headers: await a.adminHeaders(),
      payload: { statuses },
    });
    expect(stored.statusCode, stored.body).toBeLessThan(300);
    // B asks once A's announcement arrived (pub/sub: milliseconds): a list asked earlier would be cached for 30 s.
    const fanoutB: RankingFanout = instances[1]!.redis.fanout;
    await until(() => sentByA() > 0 && fanoutB.received >= sentByA());
    const servedByA = await served(a);
    expect(servedByA.length).toBeGreaterThan(1);
    expect(await served(b)).toEqual(servedByA);
    const receivedBefore = fanoutB.received;

    const gone = servedByA[0]!;
    const deleted = await a.app.inject({ method: 'DELETE', url: `/api/v1/posts/${gone}`, headers: await a.adminHeaders() });
    expect(deleted.statusCode, deleted.body).toBe(200);
    // B's list above is cached; the deletion's announcement drops it.
    await until(() => fanoutB.received > receivedBefore);
    await until(() => fanoutB.received >= sentByA());
    const list = await served(b);
    expect(list).not.toContain(gone);
    expect(list).toEqual(await served(a));
  });

  it("exports each channel's fan-out messages at /metrics: what A published, B received", async () => {
    const counts = async (t: TestApp): Promise<Map<string, number>> => {
      const families = parsePrometheusText((await t.app.inject({ method: 'GET', url: '/metrics' })).body);
      const family = families.get('service_fanout_messages_total');
      expect(family?.type).toBe('counter');
      return new Map(family!.samples.map((sample) => [`${sample.labels.channel}/${sample.labels.outcome}`, sample.value]));
    };
    const fromA = await counts(a);
    const fromB = await counts(b);
    expect(fromA.get('ranking/published')).toBe(instances[0]!.redis.fanout.published);
    expect(fromA.get('ranking/published')).toBeGreaterThan(0);
    expect(fromB.get('ranking/received')).toBe(instances[1]!.redis.fanout.received);
    expect(fromB.get('ranking/received')).toBeGreaterThan(0);
    expect([...fromA.keys()].sort()).toEqual(
      ['experiments', 'ranking'].flatMap((channel) =>
        ['publish_failed', 'published', 'received'].map((outcome) => `${channel}/${outcome}`),
      ),
    );
  });

  it('reports Redis in health', async () => {
    const body = (await b.app.inject({ url: '/api/v1/health' })).json();
    expect(body.status).toBe('healthy');
    expect(body.components.redis.status).toBe('connected');
  });
});
