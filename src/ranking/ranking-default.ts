/**
 * The default ranking (users outside experiments) as a point a deployment can move along:
 * the shipped four weights plus a `collaborative` weight, and the recency half-life (which
 * the cold start reads too). A fast feed and a slow catalogue want different points: on a
 * feed co-engaged posts are yesterday's and recency is most of the signal; on a catalogue
 * recency is about 0 for every item and co-engagement is the signal item kNN and EASE live on.
 * The `ranking_fit` agent (server/ranking-state/ranking-fit.agent.ts) chooses the point by
 * offline evaluation on the service's own interactions (src/evaluation/fit.ts).
 */
import { DEFAULT_ALGORITHM_CONFIG, SHIPPED_RANKING_OPTIONS, type AlgorithmConfig, type RankingKnobs } from './ranking.types.js';

export interface RankingDefault {
  /** Weight of the collaborative feature beside the four shipped weights (which sum to 1); 0: not read. */
  readonly collaborative: number;
  /** Half-life of the recency feature, in hours (the cold start's too). */
  readonly recency_half_life_hours: number;
  /**
   * Share of recency in the cold start (users without history), engagement the rest: 0 ranks
   * by popularity (a catalogue's best), 0.5 about as "hot" on a feed. Absent (a point stored
   * or pinned before it existed): the shipped 0.5.
   */
  readonly cold_start_recency?: number;
}

/**
 * The steps a fit moves along (one run moves at most one step on each: bounded change). The
 * collaborative ladder's first rung is 0.3: on the synthetic catalogue the default with the
 * collaborative weight plateaus from 0.3 to 1.5 on every data seed, and 0.15 sat below it
 * (nDCG@20 0.120/0.115/0.122 against 0.123/0.118/0.124 at 0.3), where 400 validation users
 * could not tell the two apart, so the fit stopped short.
 */
export const COLLABORATIVE_LADDER: readonly number[] = [0, 0.3, 0.5, 0.8, 1.5];
export const HALF_LIFE_LADDER_HOURS: readonly number[] = [2, 4, 8, 24, 72, 168];
export const COLD_START_RECENCY_LADDER: readonly number[] = [0, 0.25, 0.5, 0.75];

/** The shipped point: no collaborative weight, an 8-hour half-life (SHIPPED_RANKING_OPTIONS). */
export const SHIPPED_RANKING_DEFAULT: Required<RankingDefault> = Object.freeze({
  collaborative: 0,
  recency_half_life_hours: SHIPPED_RANKING_OPTIONS.recencyHalfLifeHours,
  cold_start_recency: SHIPPED_RANKING_OPTIONS.coldStartWeights.recency,
});

/** The point with every axis given (an absent cold start share is the shipped one). */
export function completeRankingDefault(point: RankingDefault): Required<RankingDefault> {
  return {
    collaborative: point.collaborative,
    recency_half_life_hours: point.recency_half_life_hours,
    cold_start_recency: point.cold_start_recency ?? SHIPPED_RANKING_DEFAULT.cold_start_recency,
  };
}

/** Whether two points rank alike. */
export function sameRankingDefault(a: RankingDefault, b: RankingDefault): boolean {
  const x = completeRankingDefault(a);
  const y = completeRankingDefault(b);
  return (
    x.collaborative === y.collaborative &&
    x.recency_half_life_hours === y.recency_half_life_hours &&
    x.cold_start_recency === y.cold_start_recency
  );
}

/** The config and knobs of a point. With `collaborative` 0 it is exactly DEFAULT_ALGORITHM_CONFIG and SHIPPED_RANKING_OPTIONS. */
export function rankingOf(point: RankingDefault): { config: AlgorithmConfig; options: Required<RankingKnobs> } {
  const cold = point.cold_start_recency ?? SHIPPED_RANKING_DEFAULT.cold_start_recency;
  const options =
    point.recency_half_life_hours === SHIPPED_RANKING_OPTIONS.recencyHalfLifeHours && cold === SHIPPED_RANKING_DEFAULT.cold_start_recency
      ? SHIPPED_RANKING_OPTIONS
      : {
          ...SHIPPED_RANKING_OPTIONS,
          recencyHalfLifeHours: point.recency_half_life_hours,
          coldStartWeights: { content_engagement: 1 - cold, recency: cold, trending: 0 },
        };
  if (!(point.collaborative > 0)) return { config: DEFAULT_ALGORITHM_CONFIG, options };
  return {
    config: { ...DEFAULT_ALGORITHM_CONFIG, weights: { ...DEFAULT_ALGORITHM_CONFIG.weights, collaborative: point.collaborative } },
    options,
  };
}

/** Whether a value is a valid point (what a stored fit or an operator's pin must be). */
export function isRankingDefault(value: unknown): value is RankingDefault {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.collaborative === 'number' &&
    Number.isFinite(v.collaborative) &&
    v.collaborative >= 0 &&
    v.collaborative <= 10 &&
    typeof v.recency_half_life_hours === 'number' &&
    Number.isFinite(v.recency_half_life_hours) &&
    v.recency_half_life_hours > 0 &&
    v.recency_half_life_hours <= 100_000 &&
    (v.cold_start_recency === undefined ||
      (typeof v.cold_start_recency === 'number' && v.cold_start_recency >= 0 && v.cold_start_recency <= 1))
  );
}

/** "collaborative 0.3, recency half-life 8 h, cold start recency 0.5". */
export function describeRankingDefault(point: RankingDefault): string {
  const cold = point.cold_start_recency ?? SHIPPED_RANKING_DEFAULT.cold_start_recency;
  return `collaborative ${point.collaborative}, recency half-life ${point.recency_half_life_hours} h, cold start recency ${cold}`;
}
