/**
 * The ranking state's invalidations reach every instance through Redis pub/sub: two states
 * (two instances over one database) each with their own Redis connections. A post deleted
 * or stored (a sensitive one staying sensitive), a user's signals changed, co-engagement or a user erased on A is applied to B's memory; B
 * does not send it back; and when B's subscription drops, B drops every cache (events sent
 * meanwhile are lost, so memory is read again from the database).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildUserProfile, DEFAULT_ALGORITHM_CONFIG, rankCandidates } from '../../src/ranking/index.js';
import type { StoredPost } from '../../server/ranking-state/ranking-state.events.js';
import { loadRankingState, type RankingState } from '../../server/ranking-state/ranking-state.service.js';
import { createRedisServices, type RedisServices } from '../../server/platform/redis/redis-services.js';
import { NOW, post } from '../src/ranking/fixtures.js';
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
const prefix = testPrefix('ranking-fanout');
const stored = (id: string): StoredPost => ({ ...post(id), visibility: 'public' });

describe.skipIf(unavailable !== undefined)(suiteTitle('ranking invalidation fan-out', unavailable), () => {
  /** The shared database: what a reload reads. */
  let database: StoredPost[] = [stored('p1'), stored('p2'), stored('p3')];
  let reloadsOfB = 0;
  let a: RankingState;
  let b: RankingState;
  let redisA: RedisServices;
  let redisB: RedisServices;
  const erasedOnB: string[] = [];
  const log = recordingLog();

  beforeAll(async () => {
    a = await loadRankingState(async () => database);
    b = await loadRankingState(async () => {
      reloadsOfB += 1;
      return database;
    });
    b.onUserErased((userId) => erasedOnB.push(userId));
    redisA = await createRedisServices({ url: TEST_REDIS_URL, keyPrefix: prefix });
    redisB = await createRedisServices({ url: TEST_REDIS_URL, keyPrefix: prefix, log, minBackoffMs: 1_000 });
    await redisA.attachRankingState(a);
    await redisB.attachRankingState(b);
  });

  afterAll(async () => {
    await redisA?.close();
    await redisB?.close();
    await flushPrefix(prefix);
  });

  it('a post deleted on A leaves B’s pool and B’s cached lists', async () => {
    const profile = buildUserProfile({ userId: 'u' }, b.index);
    b.storeList('u', 'k', rankCandidates(b.index, profile, DEFAULT_ALGORITHM_CONFIG, { limit: 10, nowMs: NOW }), NOW);
    expect(b.cachedList('u', 'k', NOW)?.map((item) => item.post.id)).toContain('p2');
    database = database.filter((p) => p.id !== 'p2');
    a.postsDeleted(['p2']);
    await until(() => b.index.get('p2') === undefined);
    expect(b.cachedList('u', 'k', NOW)).toBeUndefined();
  });

  it('a post stored on A joins B’s pool', async () => {
    database = [...database, stored('p9')];
    a.postsStored([stored('p9')]);
    await until(() => b.index.get('p9') !== undefined);
    expect(b.index.get('p9')?.text).toBe(stored('p9').text);
  });

  it('a sensitive post stored on A stays sensitive on B: left out for users who do not allow it', async () => {
    const sensitive: StoredPost = { ...stored('s1'), sensitive: true, createdAtMs: NOW };
    database = [...database, sensitive];
    a.postsStored([sensitive]);
    await until(() => b.index.get('s1') !== undefined);
    expect(b.index.get('s1')?.sensitive).toBe(true);
    const rank = (allowSensitive: boolean): string[] =>
      rankCandidates(b.index, buildUserProfile({ userId: 's', preferences: { allowSensitive } }, b.index), DEFAULT_ALGORITHM_CONFIG, {
        limit: 10,
        nowMs: NOW,
      }).map((item) => item.post.id);
    expect(rank(false)).not.toContain('s1');
    expect(rank(true)).toContain('s1');
  });

  it('a user’s changed signals on A drop what B holds of the user', async () => {
    b.storeProfile(buildUserProfile({ userId: 'v' }, b.index), b.userVersion('v'));
    expect(b.cachedProfile('v')).toBeDefined();
    a.userSignalsChanged('v', { kind: 'preferences', preferences: {} });
    await until(() => b.cachedProfile('v') === undefined);
  });

  it('co-engagement announced on A reaches B’s co-engagement state (the collaborative feature), with no user named', async () => {
    a.coEngaged({ postId: 'p1', withPostIds: ['p2', 'p3'], weight: 1 });
    const neighboursOnB = (): string[] => {
      const out: string[] = [];
      b.coEngagement.forEachNeighbour('p1', (id) => out.push(id));
      return out.sort();
    };
    await until(() => neighboursOnB().length === 2);
    expect(neighboursOnB()).toEqual(['p2', 'p3']);
    expect(b.coEngagement.engaged('p1')).toBe(1);
  });

  it('a user erased on A is erased from B’s memory, listeners included, and not sent back', async () => {
    b.storeProfile(buildUserProfile({ userId: 'w' }, b.index), b.userVersion('w'));
    const receivedByA = redisA.fanout.received;
    a.userErased('w');
    await until(() => erasedOnB.includes('w'));
    expect(b.cachedProfile('w')).toBeUndefined();
    // B applied A's events without publishing them again; A heard nothing of its own.
    expect(redisA.fanout.received).toBe(receivedByA);
    expect(redisA.fanout.received).toBe(0);
    expect(redisB.fanout.received).toBeGreaterThanOrEqual(4);
  });

  it('drops every cache when its subscription drops, and again once it is back', async () => {
    b.storeProfile(buildUserProfile({ userId: 'x' }, b.index), b.userVersion('x'));
    const before = reloadsOfB;
    await killFromServer(redisB.subscriber);
    await until(() => reloadsOfB > before);
    expect(b.cachedProfile('x')).toBeUndefined();
    expect(log.lines.some((line) => line.includes('NOT received'))).toBe(true);
    await until(() => reloadsOfB > before + 1);
    expect(log.lines.some((line) => line.includes('received again'))).toBe(true);
    // Subscribed again: A's next event reaches B.
    a.postsDeleted(['p9']);
    await until(() => b.index.get('p9') === undefined);
  });
});
