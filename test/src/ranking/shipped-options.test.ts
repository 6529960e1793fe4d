/**
 * The knobs of the shipped default ranking (SHIPPED_RANKING_OPTIONS) beyond its weights: the
 * cold-start mix and the share a personal reason needs. Experiments rank without them (the
 * engine's defaults), so every experiment ranks as when it was created.
 */
import { describe, expect, it } from 'vitest';
import {
  CandidateIndex,
  COLD_START_WEIGHTS,
  DEFAULT_RECENCY_HALF_LIFE_HOURS,
  emptyProfile,
  explainRanking,
  rankCandidates,
  SHIPPED_RANKING_OPTIONS,
} from '../../../src/ranking/index.js';
import { DEFAULT_ALGORITHM_CONFIG } from '../../../src/ranking/ranking.types.js';
import { HOUR, NOW, post } from './fixtures.js';

describe('the shipped ranking options', () => {
  it('rank a cold user by the cold-start mix they give, and by the engine default without them', () => {
    // An old post with a lot of engagement, and a fresh one with a little.
    const index = new CandidateIndex([
      post('old', { createdAtMs: NOW - 30 * HOUR, favourites: 200 }),
      post('new', { createdAtMs: NOW - HOUR, favourites: 3 }),
    ]);
    const cold = emptyProfile('newcomer');
    const rank = (options: object) =>
      rankCandidates(index, cold, DEFAULT_ALGORITHM_CONFIG, { limit: 2, nowMs: NOW, ...options }).map((i) => i.post.id);
    // Recency alone, engagement alone.
    expect(rank({ coldStartWeights: { content_engagement: 0, recency: 1, trending: 0 } })).toEqual(['new', 'old']);
    expect(rank({ coldStartWeights: { content_engagement: 1, recency: 0, trending: 0 } })).toEqual(['old', 'new']);
    // Shipped: 0.5·engagement + 0.5·recency with an 8-hour half-life; the engine's: 0.5·engagement + 0.3·recency (24 h) + 0.2·trend.
    const shipped = rankCandidates(index, cold, DEFAULT_ALGORITHM_CONFIG, { ...SHIPPED_RANKING_OPTIONS, limit: 2, nowMs: NOW });
    for (const item of shipped) {
      expect(item.score).toBeCloseTo(0.5 * item.features.content_engagement + 0.5 * item.features.recency, 12);
      expect(item.features.recency).toBeCloseTo(Math.pow(2, -(NOW - item.post.createdAtMs) / (8 * HOUR)), 12);
    }
    expect(SHIPPED_RANKING_OPTIONS.coldStartWeights).not.toEqual(COLD_START_WEIGHTS);
    expect(SHIPPED_RANKING_OPTIONS.recencyHalfLifeHours).not.toBe(DEFAULT_RECENCY_HALF_LIFE_HOURS);
  });

  it('name a liked author as the reason once its lift reaches the share of the largest', () => {
    const p = post('p', { accountUsername: 'frank' });
    const weights = { author_preference: 0.2, content_engagement: 0.35, recency: 0.35, semantic_similarity: 0.1, collaborative: 0 };
    // Author lift 0.2 · 0.76 = 0.152; recency lift 0.35 · 0.9 = 0.315: about 0.48 of it.
    const features = { author_preference: 0.88, content_engagement: 0.1, recency: 0.9, semantic_similarity: 0, collaborative: 0 };
    const context = { coldStart: false, trendingTag: undefined, semanticTerm: undefined };
    expect(explainRanking(p, features, weights, context).reasonCode).toBe('HIGH_ENGAGEMENT');
    expect(explainRanking(p, features, weights, context, SHIPPED_RANKING_OPTIONS.personalReasonShare).reasonCode).toBe(
      'AUTHOR_INTERACTION',
    );
    // An author barely liked stays unnamed.
    expect(
      explainRanking(p, { ...features, author_preference: 0.55 }, weights, context, SHIPPED_RANKING_OPTIONS.personalReasonShare).reasonCode,
    ).toBe('HIGH_ENGAGEMENT');
  });
});
