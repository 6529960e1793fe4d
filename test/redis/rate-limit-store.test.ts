/**
 * One contract for both rate-limit stores (memory: one process; Redis: every instance):
 * fixed windows aligned to the epoch, all of a request's windows counted together or not
 * at all, a burst never overshooting. Then what only Redis does: two stores (two
 * instances) share one count, and a Redis that stops answering fails open, logged once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimitStore, type RateLimitStore, type WindowCheck } from '../../server/platform/rate-limit/rate-limit.store.js';
import { RedisRateLimitStore } from '../../server/platform/redis/redis-rate-limit.store.js';
import type { RedisConnection } from '../../server/platform/redis/redis-connection.js';
import {
  connectTest,
  flushPrefix,
  killFromServer,
  recordingLog,
  redisUnavailable,
  suiteTitle,
  testPrefix,
  until,
} from './redis-test-env.js';

const unavailable = await redisUnavailable();
const prefix = testPrefix('rate-limit');
const connections: RedisConnection[] = [];

/**
 * Half way through a minute a little ahead of the real clock (Redis expires counters at
 * their window's end, so windows must not lie in the past).
 */
const T = (Math.floor(Date.now() / 60_000) + 2) * 60_000 + 30_000;
const HOUR_END = Math.ceil((T + 1) / 3_600_000) * 3_600_000;

const minute = (key: string, max: number): WindowCheck => ({ key, limit: { seconds: 60, max } });
const hour = (key: string, max: number): WindowCheck => ({ key, limit: { seconds: 3600, max } });

let keySeq = 0;
const fresh = (name: string): string => `${name}-${++keySeq}`;

function contract(name: string, makeStore: () => Promise<RateLimitStore>): void {
  describe(name, () => {
    let store: RateLimitStore;
    beforeAll(async () => {
      store = await makeStore();
    });

    it('counts up to the limit, then refuses until the window ends', async () => {
      const key = fresh('caller');
      const remaining: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        const result = await store.consume([minute(key, 3)], T);
        expect(result.allowed).toBe(true);
        remaining.push(result.windows[0]!.remaining);
      }
      expect(remaining).toEqual([2, 1, 0]);
      const refused = await store.consume([minute(key, 3)], T + 29_000);
      expect(refused).toEqual({ allowed: false, windows: [{ limit: 3, remaining: 0, resetAt: (T + 30_000) / 1000 }] });
      const next = await store.consume([minute(key, 3)], T + 30_000);
      expect(next).toEqual({ allowed: true, windows: [{ limit: 3, remaining: 2, resetAt: (T + 90_000) / 1000 }] });
    });

    it('counts nothing in any window when one is full', async () => {
      const caller = fresh('caller');
      const group = fresh('group');
      const checks = [minute(caller, 10), hour(caller, 100), minute(group, 2)];
      expect((await store.consume(checks, T)).allowed).toBe(true);
      expect((await store.consume(checks, T)).allowed).toBe(true);
      const refused = await store.consume(checks, T);
      expect(refused.allowed).toBe(false);
      expect(refused.windows.map((w) => w.remaining)).toEqual([8, 98, 0]);
      // The refused request left the caller's own windows as they were.
      const alone = await store.consume([minute(caller, 10), hour(caller, 100)], T);
      expect(alone.windows.map((w) => w.remaining)).toEqual([7, 97]);
      expect(alone.windows[1]!.resetAt).toBe(HOUR_END / 1000);
    });

    it('lets exactly the limit through a concurrent burst', async () => {
      const key = fresh('burst');
      const results = await Promise.all(Array.from({ length: 25 }, () => store.consume([minute(key, 10), hour(key, 12)], T)));
      expect(results.filter((r) => r.allowed)).toHaveLength(10);
      expect(Math.min(...results.map((r) => r.windows[0]!.remaining))).toBe(0);
    });

    it('keeps callers apart and the same key of another window length apart', async () => {
      const a = fresh('a');
      const b = fresh('b');
      await store.consume([minute(a, 1)], T);
      expect((await store.consume([minute(a, 1)], T)).allowed).toBe(false);
      expect((await store.consume([minute(b, 1)], T)).allowed).toBe(true);
      expect((await store.consume([hour(a, 1)], T)).allowed).toBe(true);
    });
  });
}

contract('memory store', async () => new MemoryRateLimitStore());

describe.skipIf(unavailable !== undefined)(suiteTitle('rate-limit store', unavailable), () => {
  afterAll(async () => {
    for (const connection of connections) await connection.close();
    await flushPrefix(prefix);
  });

  contract('Redis store', async () => {
    const connection = await connectTest(prefix);
    connections.push(connection);
    return new RedisRateLimitStore(connection);
  });

  it('shares one count between two instances', async () => {
    const one = await connectTest(prefix);
    const two = await connectTest(prefix);
    connections.push(one, two);
    const [a, b] = [new RedisRateLimitStore(one), new RedisRateLimitStore(two)];
    const key = fresh('shared');
    const allowed: boolean[] = [];
    for (let i = 0; i < 6; i += 1) allowed.push((await (i % 2 === 0 ? a : b).consume([minute(key, 4)], T)).allowed);
    expect(allowed).toEqual([true, true, true, true, false, false]);
  });

  it('fails open, logged once, when Redis stops answering; counts again once it is back', async () => {
    const log = recordingLog();
    const connection = await connectTest(prefix, log, { minBackoffMs: 1_000 });
    connections.push(connection);
    const store = new RedisRateLimitStore(connection);
    const key = fresh('down');
    expect((await store.consume([minute(key, 1)], T)).allowed).toBe(true);
    expect((await store.consume([minute(key, 1)], T)).allowed).toBe(false);

    // The server drops the connection; it reconnects after its (here long) backoff.
    await killFromServer(connection);
    await until(() => !connection.isReady);
    for (let i = 0; i < 3; i += 1) expect(await store.consume([minute(key, 1)], T)).toEqual({ allowed: true, windows: [] });
    expect(store.failingOpen).toBe(true);
    expect(log.lines.filter((line) => line.includes('FAIL OPEN'))).toHaveLength(1);
    expect(log.lines.filter((line) => line.includes('DOWN'))).toHaveLength(1);

    await until(() => connection.isReady);
    expect((await store.consume([minute(key, 1)], T)).allowed).toBe(false);
    expect(store.failingOpen).toBe(false);
    expect(log.lines.filter((line) => line.includes('counted in Redis again'))).toHaveLength(1);
  });
});
