/**
 * The per-feature formulas, each mapping to [0, 1] (user affinities are time-decayed
 * sums: decayed-sums.ts).
 */
import type { PoolCounts, PostCounts } from './ranking.types.js';

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
 * How much each counter weighs in a post's engagement: a reblog counts double because it
 * spreads the post. The one definition, read by the ranking, trending and the SQL that
 * picks the most engaging posts for the pool.
 */
export const ENGAGEMENT_WEIGHTS: Readonly<Record<keyof PostCounts, number>> = { favourites: 1, reblogs: 2, replies: 1 };

/** engagement = favourites + 2·reblogs + replies (ENGAGEMENT_WEIGHTS), negative or non-finite counters as 0. */
export function engagementScore(post: PostCounts): number {
  const nonNegative = (x: number): number => (Number.isFinite(x) && x > 0 ? x : 0);
  return (
    ENGAGEMENT_WEIGHTS.favourites * nonNegative(post.favourites) +
    ENGAGEMENT_WEIGHTS.reblogs * nonNegative(post.reblogs) +
    ENGAGEMENT_WEIGHTS.replies * nonNegative(post.replies)
  );
}

/** Raw engagement log1p(engagementScore): the feature is this divided by the candidate set's maximum. */
export function engagementLog(post: PostCounts): number {
  return Math.log1p(engagementScore(post));
}

/**
 * positives = favourites + reblogs + replies + bookmarks, each counted once (negative or
 * non-finite as 0): how many positive interactions a post drew, as "popularity" counts
 * them. The shipped cold start reads log1p of it (`coldStartEngagement: 'positives'`); the
 * weighted engagement above stays the `content_engagement` feature of every config.
 */
export function positivesCount(post: PoolCounts): number {
  const nonNegative = (x: number | undefined): number => (x !== undefined && Number.isFinite(x) && x > 0 ? x : 0);
  return nonNegative(post.favourites) + nonNegative(post.reblogs) + nonNegative(post.replies) + nonNegative(post.bookmarks);
}

/**
 * "Hot": how fast a post draws positives, `positives / (age_hours + 2)^HOT_GRAVITY` — the
 * one-line baseline news aggregators use, and a shape of the cold start the fit may choose
 * (`coldStartEngagement: 'hot'`). A post from the future counts as brand new.
 */
export const HOT_GRAVITY = 1.8;

export function hotScore(positives: number, ageMs: number): number {
  return positives / Math.pow(Math.max(0, ageMs) / 3_600_000 + 2, HOT_GRAVITY);
}

/** log1p(positivesCount): the positives measure is this divided by the pool's maximum. */
export function positivesLog(post: PoolCounts): number {
  return Math.log1p(positivesCount(post));
}
