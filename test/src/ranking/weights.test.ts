import { describe, expect, it } from 'vitest';
import { DEFAULT_ALGORITHM_CONFIG, effectiveWeights, type Weights } from '../../../src/ranking/index.js';

const sum = (w: Weights): number => Object.values(w).reduce((a: number, b) => a + (b ?? 0), 0);

describe('effectiveWeights', () => {
  it('keeps the documented defaults, which sum to 1', () => {
    const w = effectiveWeights(DEFAULT_ALGORITHM_CONFIG);
    // A config of the spec's four weights means collaborative 0.
    expect(w).toEqual({ author_preference: 0.2, content_engagement: 0.35, recency: 0.35, semantic_similarity: 0.1, collaborative: 0 });
    expect(sum(w)).toBeCloseTo(1, 12);
  });

  it('drops the semantic weight and renormalises the others when use_semantic_scoring is false', () => {
    const w = effectiveWeights({ ...DEFAULT_ALGORITHM_CONFIG, use_semantic_scoring: false });
    expect(w.semantic_similarity).toBe(0);
    expect(w.author_preference).toBeCloseTo(0.2 / 0.9, 12);
    expect(w.content_engagement).toBeCloseTo(0.35 / 0.9, 12);
    expect(w.recency).toBeCloseTo(0.35 / 0.9, 12);
    expect(sum(w)).toBeCloseTo(1, 12);
  });

  it('lets semantic_weight replace the semantic weight and scales the others to fill the rest', () => {
    const w = effectiveWeights({ ...DEFAULT_ALGORITHM_CONFIG, semantic_weight: 0.4 });
    expect(w.semantic_similarity).toBe(0.4);
    expect(w.author_preference).toBeCloseTo((0.2 / 0.9) * 0.6, 12);
    expect(w.recency / w.content_engagement).toBeCloseTo(1, 12);
    expect(sum(w)).toBeCloseTo(1, 12);
  });

  it('ignores semantic_weight when semantic scoring is off', () => {
    const w = effectiveWeights({ ...DEFAULT_ALGORITHM_CONFIG, use_semantic_scoring: false, semantic_weight: 0.9 });
    expect(w.semantic_similarity).toBe(0);
    expect(sum(w)).toBeCloseTo(1, 12);
  });

  it('renormalises weights that do not sum to 1 and falls back to the defaults when all are 0', () => {
    const w = effectiveWeights({ weights: { author_preference: 2, content_engagement: 0, recency: 2, semantic_similarity: 0 } });
    expect(w).toEqual({ author_preference: 0.5, content_engagement: 0, recency: 0.5, semantic_similarity: 0, collaborative: 0 });
    const zero = effectiveWeights({ weights: { author_preference: 0, content_engagement: 0, recency: 0, semantic_similarity: 0 } });
    expect(zero).toEqual(effectiveWeights(DEFAULT_ALGORITHM_CONFIG));
  });

  it('rescales the fifth weight, collaborative, with author, engagement and recency', () => {
    const weights = { author_preference: 0.2, content_engagement: 0.2, recency: 0.2, semantic_similarity: 0.1, collaborative: 0.3 };
    const same = effectiveWeights({ weights });
    for (const [key, value] of Object.entries(weights)) expect(same[key as keyof Weights]).toBeCloseTo(value, 12);
    const w = effectiveWeights({ weights: { ...weights, collaborative: 0.6 } });
    expect(w.collaborative).toBeCloseTo(0.6 / 1.3, 12);
    expect(sum(w)).toBeCloseTo(1, 12);
    const withSemantic = effectiveWeights({ weights, semantic_weight: 0.5 });
    expect(withSemantic.semantic_similarity).toBe(0.5);
    expect(withSemantic.collaborative).toBeCloseTo((0.3 / 0.9) * 0.5, 12);
    expect(sum(withSemantic)).toBeCloseTo(1, 12);
  });
});
