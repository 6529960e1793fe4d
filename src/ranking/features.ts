/**
 * The per-feature formulas, each mapping to [0, 1] (user affinities are time-decayed
 * sums: decayed-sums.ts).
 */
import type { RankablePost } from './ranking.types.js';

/**
 * Affinity at which a known author's feature reaches 0.5 + 0.5·tanh(1) ≈ 0.88: about
 * three recent favourites, or one "more" and one reblog.
 */
export const AUTHOR_AFFINITY_SCALE = 3;

/** Interactions and feedback lose half their weight every 14 days. */
export const AFFINITY_HALF_LIFE_DAYS = 14;
export const AFFINITY_HALF_LIFE_MS = AFFINITY_HALF_LIFE_DAYS * 86_400_000;

/**
 * author_preference = 0.5 + 0.5·tanh(affinity / AUTHOR_AFFINITY_SCALE): an unknown author
 * (affinity 0) sits at the neutral 0.5, a liked one above, a disliked one below.
 */
export function authorPreferenceFeature(affinity: number): number {
  return 0.5 + 0.5 * Math.tanh(affinity / AUTHOR_AFFINITY_SCALE);
}

/** recency = exp(−ln 2 · age / half-life); a post from the future counts as brand new. */
export function recencyFeature(ageMs: number, halfLifeHours: number): number {
  if (ageMs <= 0) return 1;
  return Math.exp((-Math.LN2 * ageMs) / (halfLifeHours * 3_600_000));
}

/**
 * Raw engagement log1p(favourites + 2·reblogs + replies): a reblog counts double because
 * it spreads the post. The feature is this divided by the candidate set's maximum.
 */
export function engagementLog(post: Pick<RankablePost, 'favourites' | 'reblogs' | 'replies'>): number {
  const nonNegative = (x: number): number => (Number.isFinite(x) && x > 0 ? x : 0);
  return Math.log1p(nonNegative(post.favourites) + 2 * nonNegative(post.reblogs) + nonNegative(post.replies));
}
