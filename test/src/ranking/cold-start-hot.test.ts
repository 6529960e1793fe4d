/**
 * The "hot" cold start (RankingOptions.coldStartEngagement `hot`): a newcomer's list is ranked
 * by positives / (age in hours + 2)^1.8 alone, each positive counted once, normalised by the
 * pool's maximum. Worked by hand on a tiny pool; a user with history is not touched by it.
 */
import { describe, expect, it } from 'vitest';
import {
  buildUserProfile,
  CandidateIndex,
  DEFAULT_ALGORITHM_CONFIG,
  emptyProfile,
  rankCandidates,
  SHIPPED_RANKING_OPTIONS,
  type RankingOptions,
} from '../../../src/ranking/index.js';
import { HOUR, NOW, post } from './fixtures.js';

/** Positives and ages chosen so that "hot" and popularity order them differently. */
const POSTS = [
  // 40 positives, two days old: the most popular.
  post('old-favourite', { createdAtMs: NOW - 48 * HOUR, favourites: 30, reblogs: 10 }),
  // 6 positives in its first hour.
  post('rising', { createdAtMs: NOW - 1 * HOUR, favourites: 4, bookmarks: 2 }),
  // 14 positives over six hours.
  post('steady', { createdAtMs: NOW - 6 * HOUR, favourites: 14 }),
  // 1 positive, brand new.
  post('newborn', { createdAtMs: NOW, replies: 1 }),
  // Nobody engaged: scores 0 however new.
  post('unseen', { createdAtMs: NOW - HOUR / 60 }),
];

/** The definition, computed here on its own: positives / (age_hours + 2)^1.8. */
const HAND: Record<string, number> = {
  'old-favourite': 40 / Math.pow(50, 1.8),
  rising: 6 / Math.pow(3, 1.8),
  steady: 14 / Math.pow(8, 1.8),
  newborn: 1 / Math.pow(2, 1.8),
  unseen: 0,
};

const HOT: Partial<RankingOptions> = { ...SHIPPED_RANKING_OPTIONS, coldStartEngagement: 'hot' };

function rank(index: CandidateIndex, options: Partial<RankingOptions>, userId = 'newcomer') {
  return rankCandidates(index, emptyProfile(userId), DEFAULT_ALGORITHM_CONFIG, { limit: 10, nowMs: NOW, ...options });
}

describe('the hot cold start', () => {
  it('ranks a newcomer by positives / (age + 2)^1.8 over its maximum, and nothing else', () => {
    const items = rank(new CandidateIndex(POSTS), HOT);
    const expectedOrder = Object.keys(HAND).sort((a, b) => HAND[b]! - HAND[a]!);
    expect(expectedOrder).toEqual(['rising', 'steady', 'newborn', 'old-favourite', 'unseen']);
    expect(items.map((i) => i.post.id)).toEqual(expectedOrder);
    const max = HAND.rising!;
    for (const item of items) {
      expect(item.coldStart).toBe(true);
      expect(item.score).toBeCloseTo(HAND[item.post.id]! / max, 12);
      // The score is the engagement feature alone: recency is inside "hot" already.
      expect(item.features.content_engagement).toBeCloseTo(item.score, 12);
    }
  });

  it('is not popularity: the most engaged post, two days old, ranks fourth', () => {
    const popularity = rank(new CandidateIndex(POSTS), {
      ...SHIPPED_RANKING_OPTIONS,
      coldStartWeights: { content_engagement: 1, recency: 0, trending: 0 },
    });
    expect(popularity[0]!.post.id).toBe('old-favourite');
    expect(rank(new CandidateIndex(POSTS), HOT).findIndex((i) => i.post.id === 'old-favourite')).toBe(3);
  });

  it('follows the pool: a later count moves a post, and the maximum is the pool’s own', () => {
    const index = new CandidateIndex(POSTS);
    index.updateCounts('old-favourite', { favourites: 4000, reblogs: 0, replies: 0 });
    const items = rank(index, HOT);
    expect(items[0]!.post.id).toBe('old-favourite');
    expect(items[0]!.score).toBe(1);
    const rising = items.find((i) => i.post.id === 'rising')!;
    expect(rising.score).toBeCloseTo(HAND.rising! / (4000 / Math.pow(50, 1.8)), 12);
  });

  it('leaves a user with history on the personal ranking', () => {
    const index = new CandidateIndex(POSTS);
    const profile = buildUserProfile(
      {
        userId: 'reader',
        accountId: 'acct-reader',
        interactions: [{ post: POSTS[2]!, action: 'favorite', createdAtMs: NOW - 5 * HOUR }],
      },
      index,
    );
    const withHot = rankCandidates(index, profile, DEFAULT_ALGORITHM_CONFIG, { ...HOT, limit: 10, nowMs: NOW });
    const without = rankCandidates(index, profile, DEFAULT_ALGORITHM_CONFIG, { ...SHIPPED_RANKING_OPTIONS, limit: 10, nowMs: NOW });
    expect(withHot.every((i) => !i.coldStart)).toBe(true);
    expect(withHot.map((i) => [i.post.id, i.score])).toEqual(without.map((i) => [i.post.id, i.score]));
  });
});
