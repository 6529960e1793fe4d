import { describe, expect, it } from 'vitest';
import {
  applyFeedback,
  buildUserProfile,
  CandidateIndex,
  DEFAULT_ALGORITHM_CONFIG,
  emptyProfile,
  rankCandidates,
  type AlgorithmConfig,
  type RankablePost,
  type UserProfile,
} from '../../../src/ranking/index.js';
import { HOUR, NOW, post } from './fixtures.js';

const only = (name: 'author_preference' | 'content_engagement' | 'recency' | 'semantic_similarity'): AlgorithmConfig => ({
  weights: { author_preference: 0, content_engagement: 0, recency: 0, semantic_similarity: 0, [name]: 1 },
});

// Four candidates, each the best on exactly one feature.
const byLikedAuthor = post('a', {
  accountId: 'fav',
  accountUsername: 'alice',
  text: 'tomatoes in the garden',
  createdAtMs: NOW - 48 * HOUR,
});
const fresh = post('b', { text: 'morning coffee thoughts', createdAtMs: NOW - 0.5 * HOUR });
const popular = post('c', { text: 'football results tonight', createdAtMs: NOW - 72 * HOUR, favourites: 400, reblogs: 90, replies: 30 });
const onTopic = post('d', { text: 'rust compiler borrow checker tricks', tags: ['rust'], createdAtMs: NOW - 96 * HOUR });
// What the user engaged with: two rust posts by the liked author.
const liked1 = post('l1', {
  accountId: 'fav',
  accountUsername: 'alice',
  text: 'rust compiler lifetimes explained',
  tags: ['rust'],
  createdAtMs: NOW - 100 * HOUR,
});
const liked2 = post('l2', {
  accountId: 'fav',
  accountUsername: 'alice',
  text: 'borrow checker rust patterns',
  tags: ['rust'],
  createdAtMs: NOW - 100 * HOUR,
});

function setup(extra: RankablePost[] = []): { index: CandidateIndex; profile: UserProfile } {
  const index = new CandidateIndex([byLikedAuthor, fresh, popular, onTopic, liked1, liked2, ...extra]);
  const profile = buildUserProfile(
    {
      userId: 'u1',
      accountId: 'me',
      interactions: [
        { post: liked1, action: 'favorite', createdAtMs: NOW - 24 * HOUR },
        { post: liked2, action: 'reblog', createdAtMs: NOW - 24 * HOUR },
      ],
    },
    index,
  );
  return { index, profile };
}

const ids = (items: { post: RankablePost }[]): string[] => items.map((i) => i.post.id);

describe('rankCandidates: every weight is used', () => {
  it('puts a different post first under each single-feature configuration', () => {
    const { index, profile } = setup();
    const top = (config: AlgorithmConfig): string | undefined =>
      rankCandidates(index, profile, config, { limit: 10, nowMs: NOW })[0]?.post.id;
    expect(top(only('author_preference'))).toBe('a');
    expect(top(only('recency'))).toBe('b');
    expect(top(only('content_engagement'))).toBe('c');
    expect(top(only('semantic_similarity'))).toBe('d');
  });

  it('scores as the weighted sum of the reported features', () => {
    const { index, profile } = setup();
    for (const item of rankCandidates(index, profile, DEFAULT_ALGORITHM_CONFIG, { limit: 10, nowMs: NOW })) {
      const f = item.features;
      const expected = 0.2 * f.author_preference + 0.35 * f.content_engagement + 0.35 * f.recency + 0.1 * f.semantic_similarity;
      expect(item.score).toBeCloseTo(expected, 12);
    }
  });

  it('ignores semantic similarity when use_semantic_scoring is false', () => {
    const { index, profile } = setup();
    const off = rankCandidates(index, profile, { ...only('semantic_similarity'), use_semantic_scoring: false }, { limit: 10, nowMs: NOW });
    expect(off[0]?.post.id).not.toBe('d');
    const d = off.find((i) => i.post.id === 'd');
    expect(d?.features.semantic_similarity).toBeGreaterThan(0.3);
    const f = d?.features ?? { author_preference: 0, content_engagement: 0, recency: 0 };
    expect(d?.score).toBeCloseTo((f.author_preference + f.content_engagement + f.recency) / 3, 12);
  });

  it('lets semantic_weight override the variant weights', () => {
    const { index, profile } = setup();
    const recencyOnly = rankCandidates(index, profile, only('recency'), { limit: 10, nowMs: NOW });
    const overridden = rankCandidates(index, profile, { ...only('recency'), semantic_weight: 0.9 }, { limit: 10, nowMs: NOW });
    expect(recencyOnly[0]?.post.id).toBe('b');
    expect(overridden[0]?.post.id).toBe('d');
  });

  it('returns scores in [0, 1], sorted, with newer first on ties', () => {
    const twinOld = post('t1', { createdAtMs: NOW - 10 * HOUR });
    const twinNew = post('t2', { createdAtMs: NOW - 9 * HOUR });
    const { index, profile } = setup([twinOld, twinNew]);
    const items = rankCandidates(index, profile, only('author_preference'), { limit: 10, nowMs: NOW });
    for (const [i, item] of items.entries()) {
      expect(item.score).toBeGreaterThanOrEqual(0);
      expect(item.score).toBeLessThanOrEqual(1);
      if (i > 0) expect(item.score).toBeLessThanOrEqual(items[i - 1]?.score ?? 1);
    }
    const order = ids(items);
    expect(order.indexOf('t2')).toBeLessThan(order.indexOf('t1'));
  });
});

describe('rankCandidates: reasons', () => {
  it('names the real cause of each recommendation', () => {
    const trending = ['t1', 't2', 't3'].map((id, i) =>
      post(id, { tags: ['caturday'], text: 'cat pictures', createdAtMs: NOW - (i + 1) * HOUR, favourites: 5 }),
    );
    const { index, profile } = setup(trending);
    const reason = (config: AlgorithmConfig, id: string): [string, string] => {
      const item = rankCandidates(index, profile, config, { limit: 20, nowMs: NOW }).find((i) => i.post.id === id);
      return [item?.reasonCode ?? '', item?.reasonText ?? ''];
    };
    expect(reason(DEFAULT_ALGORITHM_CONFIG, 'a')).toEqual(['AUTHOR_INTERACTION', 'Because you often engage with @alice']);
    expect(reason(only('semantic_similarity'), 'd')).toEqual(['SEMANTIC_MATCH', 'Similar to posts you liked about #rust']);
    expect(reason(only('content_engagement'), 'c')).toEqual(['HIGH_ENGAGEMENT', 'Popular across the network']);
    expect(reason(DEFAULT_ALGORITHM_CONFIG, 't1')).toEqual(['TRENDING_TAG', 'Trending now: #caturday']);
    expect(rankCandidates(index, profile, DEFAULT_ALGORITHM_CONFIG, { limit: 20, nowMs: NOW }).every((i) => !i.coldStart)).toBe(true);
  });
});

describe('rankCandidates: cold start', () => {
  const old = post('old-popular', { createdAtMs: NOW - 30 * HOUR, favourites: 900, reblogs: 200 });
  const trend = ['x1', 'x2', 'x3'].map((id) => post(id, { tags: ['eclipse'], createdAtMs: NOW - 2 * HOUR, favourites: 3 }));
  const quiet = post('quiet', { createdAtMs: NOW - 1 * HOUR });

  it('ranks engaging and trending posts first and says it is still learning', () => {
    const index = new CandidateIndex([quiet, old, ...trend]);
    const items = rankCandidates(index, emptyProfile('new-user'), DEFAULT_ALGORITHM_CONFIG, { limit: 10, nowMs: NOW });
    expect(ids(items)).toEqual(['old-popular', 'x1', 'x2', 'x3', 'quiet']);
    expect(items.every((i) => i.coldStart && i.reasonText.includes('still learning what you like'))).toBe(true);
    expect(items[0]?.reasonCode).toBe('HIGH_ENGAGEMENT');
    expect(items[1]).toMatchObject({ reasonCode: 'TRENDING_TAG', reasonText: expect.stringContaining('#eclipse') });
  });

  it('does not depend on the variant weights, which have nothing to work with yet', () => {
    const index = new CandidateIndex([quiet, old, ...trend]);
    const a = rankCandidates(index, emptyProfile('n'), only('recency'), { limit: 10, nowMs: NOW });
    const b = rankCandidates(index, emptyProfile('n'), only('semantic_similarity'), { limit: 10, nowMs: NOW });
    expect(ids(a)).toEqual(ids(b));
  });
});

describe('rankCandidates: feedback', () => {
  it('demotes an author after "less" feedback and promotes after "more"', () => {
    const target = post('target', { accountId: 'bob', accountUsername: 'bob', createdAtMs: NOW - 3 * HOUR });
    const twin = post('twin', { accountId: 'carol', createdAtMs: NOW - 3 * HOUR });
    const other = post('bob-old', { accountId: 'bob', accountUsername: 'bob', createdAtMs: NOW - 50 * HOUR });
    const index = new CandidateIndex([target, twin, other]);
    const profile = buildUserProfile({ userId: 'u', interactions: [{ post: liked1, action: 'favorite', createdAtMs: NOW - HOUR }] }, index);
    const scoreOf = (): number =>
      rankCandidates(index, profile, DEFAULT_ALGORITHM_CONFIG, { limit: 10, nowMs: NOW }).find((i) => i.post.id === 'target')?.score ?? NaN;
    const before = scoreOf();
    applyFeedback(profile, { post: other, feedback: 'less', createdAtMs: NOW - HOUR }, index);
    const after = rankCandidates(index, profile, DEFAULT_ALGORITHM_CONFIG, { limit: 10, nowMs: NOW });
    expect(after.find((i) => i.post.id === 'target')?.score).toBeLessThan(before);
    expect(after.find((i) => i.post.id === 'target')?.features.author_preference).toBeLessThan(0.5);
    expect(ids(after).indexOf('target')).toBeGreaterThan(ids(after).indexOf('twin'));

    const liking = buildUserProfile({ userId: 'v' }, index);
    applyFeedback(liking, { post: other, feedback: 'more', createdAtMs: NOW - HOUR }, index);
    const more = rankCandidates(index, liking, DEFAULT_ALGORITHM_CONFIG, { limit: 10, nowMs: NOW });
    expect(ids(more)[0]).toBe('target');
  });
});
