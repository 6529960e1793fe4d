/**
 * The shipped cold start's engagement (RankingOptions.coldStartEngagement `positives`): each
 * positive counted once, bookmarks included, over its own maximum in the pool, and no recency
 * for a post without any positive. Worked by hand on a tiny pool; experiments (the knob
 * absent) keep the weighted engagement.
 */
import { describe, expect, it } from 'vitest';
import {
  CandidateIndex,
  DEFAULT_ALGORITHM_CONFIG,
  emptyProfile,
  engagementScore,
  positivesCount,
  positivesLog,
  rankCandidates,
  SHIPPED_RANKING_OPTIONS,
  type RankingOptions,
} from '../../../src/ranking/index.js';
import { HOUR, NOW, post } from './fixtures.js';

/** Same age (2 h), four authors. */
function pool(): CandidateIndex {
  return new CandidateIndex([
    // Weighted 10 (a reblog counts twice), 5 positives.
    post('reblogged', { createdAtMs: NOW - 2 * HOUR, reblogs: 5 }),
    // Weighted 4, 7 positives (the bookmarks count once each).
    post('bookmarked', { createdAtMs: NOW - 2 * HOUR, favourites: 4, bookmarks: 3 }),
    // Weighted 1, 1 positive.
    post('replied', { createdAtMs: NOW - 2 * HOUR, replies: 1 }),
    // Nothing, and the newest.
    post('fresh', { createdAtMs: NOW - HOUR / 60 }),
  ]);
}

function rank(index: CandidateIndex, options: Partial<RankingOptions> = {}) {
  return rankCandidates(index, emptyProfile('newcomer'), DEFAULT_ALGORITHM_CONFIG, { limit: 10, nowMs: NOW, ...options });
}

describe('the positives count', () => {
  it('counts each positive once, bookmarks included', () => {
    const counts = { favourites: 2, reblogs: 3, replies: 1, bookmarks: 4 };
    expect(positivesCount(counts)).toBe(10);
    expect(engagementScore(counts)).toBe(2 + 2 * 3 + 1);
    expect(positivesLog(counts)).toBe(Math.log1p(10));
    // Absent bookmarks, negative or non-finite counters are 0.
    expect(positivesCount({ favourites: -1, reblogs: Number.NaN, replies: 2 })).toBe(2);
  });

  it('ranks a newcomer by it under the shipped options: score = 0.5·positives/max + 0.5·recency, recency 0 without a positive', () => {
    const items = rank(pool(), SHIPPED_RANKING_OPTIONS);
    expect(items.map((i) => i.post.id)).toEqual(['bookmarked', 'reblogged', 'replied', 'fresh']);
    const recency = Math.pow(2, -2 / 8);
    const expected: Record<string, number> = {
      bookmarked: 0.5 * 1 + 0.5 * recency,
      reblogged: (0.5 * Math.log1p(5)) / Math.log1p(7) + 0.5 * recency,
      replied: (0.5 * Math.log1p(1)) / Math.log1p(7) + 0.5 * recency,
      fresh: 0,
    };
    for (const item of items) {
      expect(item.score).toBeCloseTo(expected[item.post.id]!, 12);
      expect(item.score).toBeCloseTo(0.5 * item.features.content_engagement + 0.5 * item.features.recency, 12);
      expect(item.coldStart).toBe(true);
    }
  });

  it('leaves the engine default (experiments) on the weighted engagement, with recency for every post', () => {
    const items = rank(pool());
    // 0.5·engagement + 0.3·recency (24 h) + 0.2·trend (no tags: 0): the reblogged post leads, its reblogs counted twice.
    expect(items.map((i) => i.post.id)).toEqual(['reblogged', 'bookmarked', 'replied', 'fresh']);
    const byId = new Map(items.map((i) => [i.post.id, i]));
    expect(byId.get('reblogged')!.features.content_engagement).toBe(1);
    expect(byId.get('bookmarked')!.features.content_engagement).toBeCloseTo(Math.log1p(4) / Math.log1p(10), 12);
    // The post nobody engaged with keeps its recency.
    const fresh = byId.get('fresh')!;
    expect(fresh.score).toBeCloseTo(0.3 * Math.pow(2, -1 / 60 / 24), 12);
  });

  it('is kept up to date by the pool: counts with or without bookmarks, removal of the maximum', () => {
    const index = pool();
    expect(index.positivesMax()).toBe(Math.log1p(7));
    // A writer that does not know the bookmarks keeps the pooled post's.
    index.updateCounts('bookmarked', { favourites: 5, reblogs: 0, replies: 0 });
    expect(index.get('bookmarked')!.bookmarks).toBe(3);
    expect(index.positivesMax()).toBe(Math.log1p(8));
    // Bookmarks taken back (an erasure): the maximum falls to the next post.
    index.updateCounts('bookmarked', { favourites: 0, reblogs: 0, replies: 0, bookmarks: 0 });
    expect(index.positivesMax()).toBe(Math.log1p(5));
    index.updateCounts('fresh', { favourites: 0, reblogs: 0, replies: 0, bookmarks: 9 });
    expect(index.positivesMax()).toBe(Math.log1p(9));
    index.remove('fresh');
    expect(index.positivesMax()).toBe(Math.log1p(5));
    expect(rank(index, SHIPPED_RANKING_OPTIONS).map((i) => i.post.id)).toEqual(['reblogged', 'replied', 'bookmarked']);
  });
});
