import { describe, expect, it } from 'vitest';
import {
  buildUserProfile,
  DEFAULT_ALGORITHM_CONFIG,
  estimatedProfileBytes,
  rankCandidates,
  type RankedItem,
} from '../../../src/ranking/index.js';
import type { Status } from '../../../src/schemas/post.schema.js';
import type { StoredPost } from '../../../server/ranking-state/ranking-state.events.js';
import { loadRankingState, RankingState } from '../../../server/ranking-state/ranking-state.service.js';
import { StatusCache } from '../../../server/ranking-state/status-cache.js';
import { NOW, post } from '../../src/ranking/fixtures.js';

const stored = (id: string, overrides: Partial<StoredPost> = {}): StoredPost => ({ ...post(id), visibility: 'public', ...overrides });
const status = (id: string): Status => ({ id, favourites_count: 0, reblogs_count: 0, replies_count: 0 }) as unknown as Status;
const list = (state: RankingState, userId: string): RankedItem[] => {
  const profile = state.cachedProfile(userId) ?? buildUserProfile({ userId }, state.index);
  return rankCandidates(state.index, profile, DEFAULT_ALGORITHM_CONFIG, { limit: 10, nowMs: NOW });
};

describe('RankingState.reload', () => {
  it('keeps the post events announced while it read the database: the new pool is not behind them', async () => {
    let read: (posts: StoredPost[]) => void = () => undefined;
    let reads = 0;
    const state = await loadRankingState(async () => {
      reads += 1;
      if (reads === 1) return [stored('old'), stored('gone'), stored('counted')];
      return new Promise<StoredPost[]>((resolve) => (read = resolve));
    });
    const reloading = state.reload();
    // Committed and announced after the reload's read, before its pool replaced this one.
    state.postsStored([stored('new')]);
    state.postsDeleted(['gone']);
    state.postCountsChanged('counted', { favourites: 7, reblogs: 1, replies: 0 });
    state.postsStored([stored('old', { visibility: 'private' })]);
    read([stored('old'), stored('gone'), stored('counted')]);
    await reloading;
    expect(state.index.get('new')).toBeDefined();
    expect(state.index.get('gone')).toBeUndefined();
    expect(state.index.get('old')).toBeUndefined();
    expect(state.index.get('counted')).toMatchObject({ favourites: 7, reblogs: 1 });
    // Events after the reload are not replayed again later.
    state.postsDeleted(['new']);
    expect(state.index.get('new')).toBeUndefined();
  });

  it('a failed read leaves the pool as it was and logs nothing more', async () => {
    let fail = false;
    const state = await loadRankingState(async () => {
      if (fail) throw new Error('database gone');
      return [stored('a')];
    });
    fail = true;
    await expect(state.reload()).rejects.toThrow('database gone');
    state.postsStored([stored('b')]);
    expect(state.index.get('a')).toBeDefined();
    expect(state.index.get('b')).toBeDefined();
  });
});

describe('RankingState events', () => {
  it('postsStored pools recommendable posts, drops their cached statuses, and takes out a post that turned private', async () => {
    const state = await loadRankingState(async () => [stored('a'), stored('hidden', { visibility: 'direct' })]);
    expect(state.index.get('a')).toBeDefined();
    expect(state.index.get('hidden')).toBeUndefined();
    state.statuses.keepStatus(status('a'));
    state.statuses.keepJsonPrefix('a', '{"id":"a"');
    state.storeList('u', 'k', list(state, 'u'), NOW);
    state.postsStored([stored('a', { visibility: 'private' })]);
    // Before, a post edited to private stayed in the pool and in cached lists.
    expect(state.index.get('a')).toBeUndefined();
    expect(state.cachedList('u', 'k', NOW)).toBeUndefined();
    expect(state.statuses.status('a')).toBeUndefined();
    expect(state.statuses.jsonPrefix('a')).toBeUndefined();
  });

  it('postsDeleted leaves the pool, the status caches and every cached list', async () => {
    const state = await loadRankingState(async () => [stored('a'), stored('b')]);
    state.statuses.keepStatus(status('b'));
    state.storeList('u', 'k', list(state, 'u'), NOW);
    state.postsDeleted(['b']);
    expect(state.index.get('b')).toBeUndefined();
    expect(state.statuses.status('b')).toBeUndefined();
    expect(state.cachedList('u', 'k', NOW)).toBeUndefined();
  });

  it('postCountsChanged moves the pool and patches the cached status, dropping its JSON', async () => {
    const state = await loadRankingState(async () => [stored('a')]);
    state.statuses.keepStatus(status('a'));
    state.statuses.keepJsonPrefix('a', '{"id":"a"');
    state.postCountsChanged('a', { favourites: 5, reblogs: 2, replies: 1 });
    expect(state.index.get('a')).toMatchObject({ favourites: 5, reblogs: 2, replies: 1 });
    expect(state.statuses.status('a')).toMatchObject({ favourites_count: 5, reblogs_count: 2, replies_count: 1 });
    expect(state.statuses.jsonPrefix('a')).toBeUndefined();
  });

  it('userSignalsChanged applies the change to a cached profile, drops the lists, and stops a profile loaded meanwhile from being cached', async () => {
    const state = await loadRankingState(async () => [stored('a', { accountId: 'alice' }), stored('b')]);
    const profile = buildUserProfile({ userId: 'u' }, state.index);
    state.storeProfile(profile, state.userVersion('u'));
    state.storeList('u', 'k', list(state, 'u'), NOW);
    const loadingAt = state.userVersion('v');
    state.userSignalsChanged('u', {
      kind: 'interaction',
      interaction: { post: post('a', { accountId: 'alice' }), action: 'favorite', createdAtMs: NOW },
    });
    state.userSignalsChanged('v', { kind: 'feedback', feedback: { post: post('b'), feedback: 'less', createdAtMs: NOW } });
    expect(state.cachedProfile('u')?.authorAffinity.valueAt('alice', NOW)).toBe(1);
    expect(state.cachedProfile('u')?.seenPosts.has('a')).toBe(true);
    expect(state.cachedList('u', 'k', NOW)).toBeUndefined();
    state.storeProfile(buildUserProfile({ userId: 'v' }, state.index), loadingAt);
    expect(state.cachedProfile('v')).toBeUndefined();
    state.userSignalsChanged('u', { kind: 'preferences', preferences: { mutedTags: ['#Cats'] } });
    expect(state.cachedProfile('u')?.preferences.mutedTags).toEqual(['cats']);
  });

  it('userErased leaves nothing of the user in memory', async () => {
    const state = await loadRankingState(async () => [stored('a')]);
    state.storeProfile(buildUserProfile({ userId: 'u' }, state.index), state.userVersion('u'));
    state.storeList('u', 'k', list(state, 'u'), NOW);
    state.userErased('u');
    expect(state.cachedProfile('u')).toBeUndefined();
    expect(state.cachedList('u', 'k', NOW)).toBeUndefined();
  });

  it('reload starts again from the source and forgets every cache', async () => {
    let posts = [stored('a')];
    const state = await loadRankingState(async () => posts);
    state.storeProfile(buildUserProfile({ userId: 'u' }, state.index), state.userVersion('u'));
    const before = state.userVersion('u');
    state.statuses.keepStatus(status('a'));
    posts = [stored('b')];
    await state.reload();
    expect(state.index.get('a')).toBeUndefined();
    expect(state.index.get('b')).toBeDefined();
    expect(state.cachedProfile('u')).toBeUndefined();
    expect(state.statuses.status('a')).toBeUndefined();
    // A profile that started loading before the reload is not cached after it.
    state.storeProfile(buildUserProfile({ userId: 'u' }, state.index), before);
    expect(state.cachedProfile('u')).toBeUndefined();
  });

  it('bounds its caches and reports their sizes', async () => {
    const state = new RankingState(async () => [], { profileCapacity: 2, resultCapacity: 2 });
    for (const id of ['u1', 'u2', 'u3']) state.storeProfile(buildUserProfile({ userId: id }, state.index), state.userVersion(id));
    state.statuses.keepJsonPrefix('a', 'x'.repeat(100));
    const sizes = Object.fromEntries(state.cacheSizes().map((s) => [s.cache, s]));
    expect(sizes.profiles?.entries).toBe(2);
    expect(sizes.profiles?.bytes).toBeGreaterThan(0);
    expect(sizes.status_json).toEqual({ cache: 'status_json', entries: 1, bytes: 100 });
    expect(Object.keys(sizes).sort()).toEqual([
      'candidate_pool',
      'co_engagement',
      'collaborative_candidates',
      'kept_pages',
      'profiles',
      'recent_interactions',
      'results',
      'status_json',
      'statuses',
      'vocabulary',
    ]);
  });
});

describe('RankingState memory bounds', () => {
  const profileOf = (userId: string, keys: number) => {
    const profile = buildUserProfile({ userId }, new RankingState(async () => []).index);
    for (let k = 0; k < keys; k++) profile.interest.add(`term${k}`, 1, 0);
    return profile;
  };

  it('bounds profiles by their estimated bytes, however many there are, and counts a profile again as it grows', () => {
    const one = estimatedProfileBytes(profileOf('x', 100));
    const state = new RankingState(async () => [], { profileCapacity: 1_000, profileMaxBytes: 5 * one });
    for (let u = 0; u < 50; u++) state.storeProfile(profileOf(`u${u}`, 100), state.userVersion(`u${u}`));
    const bytes = () => state.cacheSizes().find((c) => c.cache === 'profiles')!;
    expect(bytes().entries).toBe(5);
    expect(bytes().bytes).toBeLessThanOrEqual(5 * one);
    expect(state.cachedProfile('u49')).toBeDefined();
    expect(state.cachedProfile('u0')).toBeUndefined();
    // A signal grows a cached profile: the cache re-counts it and drops the least recent to stay within the bound.
    const before = bytes().bytes!;
    const terms = Array.from({ length: 200 }, (_, k): [string, number] => [`new${k}`, 1]);
    const post = { id: 'p', accountId: 'a', tags: [], text: '' };
    state.userSignalsChanged('u49', { kind: 'interaction', interaction: { post, action: 'favorite', createdAtMs: 1 }, terms });
    expect(state.cachedProfile('u49')!.interest.size).toBe(300);
    expect(bytes().bytes).toBeLessThanOrEqual(5 * one);
    expect(bytes().entries).toBeLessThan(5);
    expect(bytes().bytes).not.toBe(before);
  });

  it('bounds cached lists by their estimated bytes', () => {
    const state = new RankingState(async () => [], { resultCapacity: 1_000, resultMaxBytes: 50_000 });
    const items = Array.from({ length: 20 }, () => ({}) as RankedItem);
    for (let u = 0; u < 100; u++) state.storeList(`u${u}`, 'k', items, 0);
    const results = state.cacheSizes().find((c) => c.cache === 'results')!;
    expect(results.bytes).toBeLessThanOrEqual(50_000);
    expect(results.entries).toBeGreaterThan(0);
    expect(results.entries).toBeLessThan(100);
    expect(state.cachedList('u99', 'k', 1)).toBe(items);
  });

  it('keeps what is kept with a cached list (a sent page) in the list entry, counted in the lists bound and dropped with it', () => {
    const state = new RankingState(async () => [], { resultCapacity: 1_000, resultMaxBytes: 200_000 });
    const lists = Array.from({ length: 10 }, () => Array.from({ length: 20 }, () => ({}) as RankedItem));
    lists.forEach((list, u) => {
      state.storeList(`u${u}`, 'k', list, 0);
      state.keepWithList(`u${u}`, 'k', list, { page: u }, 45_000);
    });
    const sizes = Object.fromEntries(state.cacheSizes().map((c) => [c.cache, c]));
    // 10 entries of 45,000 + 20 × 400 + 500 bytes do not fit in 200,000: the oldest users went, list and page.
    expect(sizes.results!.bytes).toBeLessThanOrEqual(200_000);
    expect(sizes.results!.entries).toBe(3);
    expect(sizes.kept_pages).toMatchObject({ entries: 3, bytes: 3 * 45_000 });
    expect(state.keptWithList('u9', 'k', lists[9]!)).toEqual({ page: 9 });
    expect(state.keptWithList('u0', 'k', lists[0]!)).toBeUndefined();
    expect(state.cachedList('u0', 'k', 1)).toBeUndefined();
    // A page is kept only with the list it was built from, and goes when that list is replaced.
    state.keepWithList('u9', 'k', lists[0]!, { page: 'other' }, 10);
    expect(state.keptWithList('u9', 'k', lists[9]!)).toEqual({ page: 9 });
    state.storeList('u9', 'k', lists[1]!, 0);
    expect(state.keptWithList('u9', 'k', lists[1]!)).toBeUndefined();
    expect(state.keptWithList('u9', 'k', lists[9]!)).toBeUndefined();
    // Without its page, a list alone costs 20 × 400 + 500 bytes.
    expect(state.cacheSizes().find((c) => c.cache === 'kept_pages')).toMatchObject({ entries: 2, bytes: 2 * 45_000 });
  });
});

describe('StatusCache', () => {
  it('is least-recently-used: a status read often survives a stream of one-off reads', () => {
    const cache = new StatusCache({ statusCapacity: 3, jsonMaxChars: 1000 });
    cache.keepStatus(status('hot'));
    for (const id of ['a', 'b', 'c', 'd']) {
      expect(cache.status('hot')).toBeDefined(); // before, reads did not count (FIFO): 'hot' went first
      cache.keepStatus(status(id));
    }
    expect(cache.status('hot')).toBeDefined();
    expect(cache.status('a')).toBeUndefined();
  });

  it('bounds the serialised JSON by characters, dropping the least recently used', () => {
    const cache = new StatusCache({ statusCapacity: 10, jsonMaxChars: 250 });
    for (const id of ['a', 'b', 'c']) cache.keepJsonPrefix(id, id.repeat(100));
    expect(cache.sizes().jsonChars).toBeLessThanOrEqual(250);
    expect(cache.jsonPrefix('a')).toBeUndefined();
    expect(cache.jsonPrefix('c')).toBe('c'.repeat(100));
  });
});
