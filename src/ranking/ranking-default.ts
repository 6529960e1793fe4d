/**
 * The default ranking (users outside experiments) as a point a deployment can move along:
 * the shipped four weights plus a `collaborative` weight, the weight of engagement among the
 * four, the recency half-life (which the cold start reads too), the cap per author and the
 * cold start's share of recency. A fast feed and a slow catalogue want different points: on a
 * feed co-engaged posts are yesterday's and recency is most of the signal; on a catalogue
 * recency is about 0 for every item and co-engagement is the signal item kNN and EASE live on.
 * The `ranking_fit` agent (server/ranking-state/ranking-fit.agent.ts) chooses the point by
 * offline evaluation on the service's own interactions (src/evaluation/fit.ts).
 */
import {
  DEFAULT_ALGORITHM_CONFIG,
  DEFAULT_PER_AUTHOR_CAP,
  SHIPPED_RANKING_OPTIONS,
  type AlgorithmConfig,
  type EngagementHalfLife,
  type RankingKnobs,
} from './ranking.types.js';

export interface RankingDefault {
  /**
   * Weight of the collaborative feature against the four shipped weights (which sum to 1); 0:
   * not read. Above 1 the four are divided by it instead (a weight is at most 1: `effectiveWeights`),
   * so 3 gives the collaborative feature three times the rest's weight.
   */
  readonly collaborative: number;
  /** Half-life of the recency feature, in hours (the cold start's too). */
  readonly recency_half_life_hours: number;
  /**
   * The cold start (users without history): a share of recency, engagement the rest — 0 ranks
   * by popularity (a catalogue's best), 0.5 above "hot" on the synthetic feeds — or `hot`: "hot"
   * itself (positives / (age in hours + 2)^1.8, `coldStartEngagement: 'hot'`), for a community
   * whose newcomers follow it better than any share. Absent (a point stored or pinned before it
   * existed): the shipped 0.5.
   */
  readonly cold_start_recency?: ColdStartShape;
  /**
   * The weight of `content_engagement` among the four shipped weights (shipped 0.35): how much
   * plain popularity counts beside the personal features. Absent: the shipped 0.35.
   */
  readonly content_engagement?: number;
  /** At most this many posts by one author in a list (shipped DEFAULT_PER_AUTHOR_CAP, 3). Absent: 3. */
  readonly per_author_cap?: number;
  /**
   * How engagement is counted (RankingOptions.engagementHalfLife): `pace` (shipped) decays it at
   * the half-life the community's pace names, `all-time` counts all of it alike, a number of
   * hours pins a half-life (the nearest of 2, 6, 24, 72, 240). Absent: `pace`. An operator's
   * override; the fit carries it unchanged.
   */
  readonly engagement_half_life?: EngagementHalfLife;
}

/**
 * The steps a fit moves along (one run moves at most one step on each: bounded change). The
 * collaborative ladder's first rung is 0.3 (on the synthetic catalogue 0.15 sat below the
 * plateau and validation users could not tell it from 0.3); past 1 the four shipped weights
 * are divided instead (`rankingOf`): with 100 seeds and no cap per author the catalogue's test
 * split ranks best at 1–3 (bench/README.md, 2026-11-28). The rungs grow about threefold so
 * that each step's gain is one a fit's users can tell.
 */
export const COLLABORATIVE_LADDER: readonly number[] = [0, 0.3, 1, 3, 10];
export const HALF_LIFE_LADDER_HOURS: readonly number[] = [2, 4, 8, 24, 72, 168];
export const COLD_START_RECENCY_LADDER: readonly number[] = [0, 0.25, 0.5, 0.75];
/** The cold start's shapes: a share of recency on COLD_START_RECENCY_LADDER, or "hot" (`RankingDefault.cold_start_recency`). */
export type ColdStartShape = number | typeof HOT_COLD_START;
/** The "hot" cold start: beside the ladder, one step from each of its shares when the newcomers judge (`neighbourColdShares`, src/evaluation/fit.ts). */
export const HOT_COLD_START = 'hot';
/** The engagement weight's rungs (the shipped 0.35 among them). */
export const ENGAGEMENT_LADDER: readonly number[] = [0, 0.1, 0.35, 1];
/** The cap per author: the shipped 3, or 20 (a first page's length: no cap on it). */
export const PER_AUTHOR_CAP_LADDER: readonly number[] = [DEFAULT_PER_AUTHOR_CAP, 20];

/** The shipped point: no collaborative weight, an 8-hour half-life (SHIPPED_RANKING_OPTIONS). */
export const SHIPPED_RANKING_DEFAULT: Required<RankingDefault> = Object.freeze({
  collaborative: 0,
  recency_half_life_hours: SHIPPED_RANKING_OPTIONS.recencyHalfLifeHours,
  cold_start_recency: SHIPPED_RANKING_OPTIONS.coldStartWeights.recency,
  content_engagement: DEFAULT_ALGORITHM_CONFIG.weights.content_engagement,
  per_author_cap: DEFAULT_PER_AUTHOR_CAP,
  engagement_half_life: SHIPPED_RANKING_OPTIONS.engagementHalfLife,
});

/**
 * A catalogue's point before any fit: where the fits on catalogues go — the collaborative
 * weight at 1 (as much as the four shipped weights together), plain popularity weighed 0.1
 * among them, and no cap of 3 posts per author. Before the ranking_fit agent's first fit
 * (seconds to minutes after an import) a catalogue was ranked at the shipped point, without the
 * signal item kNN and EASE live on. On the synthetic catalogue (data seeds 1, 2, 3, 5, 6, 7,
 * users with history) this point ranks 0.128–0.147 nDCG@20 against collaborative 0.3 alone's
 * 0.116–0.138 (EASE 0.126–0.145; the shipped point 0.089–0.106 on seeds 1, 2, 3, 5), and within 0.003
 * of collaborative 0.3 on the popularity-heavy catalogue. Users without history rank by
 * engagement alone (no share of recency: on a catalogue a post's age says nothing), which is
 * popularity user for user; with the shipped share of 0.5 a catalogue's newer engaged posts rose
 * and cost 0.005 on one popularity-heavy seed at the cutoff (0.130 against 0.135). A feed's fit
 * keeps collaborative 0 (bench/README.md, "Before the first fit").
 */
export const CATALOGUE_RANKING_DEFAULT: Required<RankingDefault> = Object.freeze({
  ...SHIPPED_RANKING_DEFAULT,
  collaborative: COLLABORATIVE_LADDER[2]!,
  content_engagement: ENGAGEMENT_LADDER[1]!,
  per_author_cap: PER_AUTHOR_CAP_LADDER[1]!,
  cold_start_recency: COLD_START_RECENCY_LADDER[0]!,
});

/**
 * A feed's recency half-life before any fit: RECENCY_PER_PACE times the median age at which
 * its posts are engaged with, on HALF_LIFE_LADDER_HOURS (the nearest rung, geometrically). On
 * synthetic feeds whose attention fades in 1, 4 and 24 hours (median ages 1.1, 2.9–3.7 and
 * 23.5–25 hours: `--synthetic feed-fast`, `feed`, `feed-slow`) that is 2, 8 and 72 hours,
 * where their fits go; 8 hours on the slow feed ranked 0.298 nDCG@20 against 72 hours' 0.416
 * asked at each user's own instant (hot 0.367), 0.325 against 0.363 asked at the cutoff (the
 * mean of three seeds: bench/README.md, "A feed's recency at its pace"). Twice the median, not
 * three times: the fast feed asked at the cutoff ranks best at 2 hours. The shipped 8 hours is
 * the rung of a median between about 2.8 and 6.9 hours.
 */
export const RECENCY_PER_PACE = 2;

/** The feed's starting points, one per rung of HALF_LIFE_LADDER_HOURS (the shipped point at its own). */
const FEED_STARTING_DEFAULTS: readonly Required<RankingDefault>[] = HALF_LIFE_LADDER_HOURS.map((hours) =>
  hours === SHIPPED_RANKING_DEFAULT.recency_half_life_hours
    ? SHIPPED_RANKING_DEFAULT
    : Object.freeze({ ...SHIPPED_RANKING_DEFAULT, recency_half_life_hours: hours }),
);

/** The rung of HALF_LIFE_LADDER_HOURS nearest `hours` on a log scale (ties to the shorter). */
function nearestHalfLifeRung(hours: number): number {
  let best = 0;
  for (let r = 1; r < HALF_LIFE_LADDER_HOURS.length; r++) {
    if (Math.abs(Math.log(HALF_LIFE_LADDER_HOURS[r]! / hours)) < Math.abs(Math.log(HALF_LIFE_LADDER_HOURS[best]! / hours))) best = r;
  }
  return best;
}

/** What `startingRankingDefault` reads of the community's pace (src/ranking/engagement-pace.ts). */
export interface PaceReading {
  catalogue(): boolean;
  /** The median age at engagement in hours; null: too few dated engagements, or a catalogue. */
  medianAgeHours(): number | null;
}

/**
 * The default ranking before a fit or an operator chose one: a catalogue's when the community's
 * pace says it is one (`EngagementPace.catalogue`: engagement months after the post, measured
 * on enough dated engagements); on a feed, the shipped point with the recency half-life its
 * pace names (RECENCY_PER_PACE); the shipped point when there is too little to tell. The same
 * object for the same reading (the ranking state compares them by identity on every request).
 * A fit's search starts from the shipped point all the same (server/ranking-state/ranking-fit.agent.ts).
 */
export function startingRankingDefault(pace: PaceReading): Required<RankingDefault> {
  if (pace.catalogue()) return CATALOGUE_RANKING_DEFAULT;
  const median = pace.medianAgeHours();
  if (median === null) return SHIPPED_RANKING_DEFAULT;
  return FEED_STARTING_DEFAULTS[nearestHalfLifeRung(RECENCY_PER_PACE * median)]!;
}

/** The point with every axis given (an absent cold start share is the shipped one). */
export function completeRankingDefault(point: RankingDefault): Required<RankingDefault> {
  return {
    collaborative: point.collaborative,
    recency_half_life_hours: point.recency_half_life_hours,
    cold_start_recency: point.cold_start_recency ?? SHIPPED_RANKING_DEFAULT.cold_start_recency,
    content_engagement: point.content_engagement ?? SHIPPED_RANKING_DEFAULT.content_engagement,
    per_author_cap: point.per_author_cap ?? SHIPPED_RANKING_DEFAULT.per_author_cap,
    engagement_half_life: point.engagement_half_life ?? SHIPPED_RANKING_DEFAULT.engagement_half_life,
  };
}

/** Whether two points rank alike. */
export function sameRankingDefault(a: RankingDefault, b: RankingDefault): boolean {
  const x = completeRankingDefault(a);
  const y = completeRankingDefault(b);
  return (
    x.collaborative === y.collaborative &&
    x.recency_half_life_hours === y.recency_half_life_hours &&
    x.cold_start_recency === y.cold_start_recency &&
    x.content_engagement === y.content_engagement &&
    x.per_author_cap === y.per_author_cap &&
    x.engagement_half_life === y.engagement_half_life
  );
}

/**
 * The config and knobs of a point. At the shipped engagement weight and cap, with `collaborative`
 * 0, it is exactly DEFAULT_ALGORITHM_CONFIG and SHIPPED_RANKING_OPTIONS.
 */
export function rankingOf(point: RankingDefault): { config: AlgorithmConfig; options: Required<RankingKnobs> } {
  const p = completeRankingDefault(point);
  const cold = p.cold_start_recency;
  const options =
    p.recency_half_life_hours === SHIPPED_RANKING_OPTIONS.recencyHalfLifeHours &&
    cold === SHIPPED_RANKING_DEFAULT.cold_start_recency &&
    p.per_author_cap === SHIPPED_RANKING_OPTIONS.perAuthorCap &&
    p.engagement_half_life === SHIPPED_RANKING_OPTIONS.engagementHalfLife
      ? SHIPPED_RANKING_OPTIONS
      : {
          ...SHIPPED_RANKING_OPTIONS,
          recencyHalfLifeHours: p.recency_half_life_hours,
          ...(cold === HOT_COLD_START
            ? { coldStartEngagement: 'hot' as const }
            : { coldStartWeights: { content_engagement: 1 - cold, recency: cold, trending: 0 } }),
          perAuthorCap: p.per_author_cap,
          engagementHalfLife: p.engagement_half_life,
        };
  const shippedWeights = DEFAULT_ALGORITHM_CONFIG.weights;
  if (!(p.collaborative > 0) && p.content_engagement === shippedWeights.content_engagement)
    return { config: DEFAULT_ALGORITHM_CONFIG, options };
  // Above 1 the collaborative weight stays 1 and the four shipped weights are divided by it instead (same ratios).
  const scale = p.collaborative > 1 ? 1 / p.collaborative : 1;
  const four = { ...shippedWeights, content_engagement: p.content_engagement };
  const weights =
    scale === 1
      ? four
      : {
          author_preference: four.author_preference * scale,
          content_engagement: four.content_engagement * scale,
          recency: four.recency * scale,
          semantic_similarity: four.semantic_similarity * scale,
        };
  return {
    config: {
      ...DEFAULT_ALGORITHM_CONFIG,
      weights: p.collaborative > 0 ? { ...weights, collaborative: Math.min(1, p.collaborative) } : weights,
    },
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
      v.cold_start_recency === HOT_COLD_START ||
      (typeof v.cold_start_recency === 'number' && v.cold_start_recency >= 0 && v.cold_start_recency <= 1)) &&
    (v.content_engagement === undefined ||
      (typeof v.content_engagement === 'number' && v.content_engagement >= 0 && v.content_engagement <= 1)) &&
    (v.per_author_cap === undefined ||
      (typeof v.per_author_cap === 'number' && Number.isInteger(v.per_author_cap) && v.per_author_cap >= 1 && v.per_author_cap <= 1000)) &&
    (v.engagement_half_life === undefined ||
      v.engagement_half_life === 'pace' ||
      v.engagement_half_life === 'all-time' ||
      (typeof v.engagement_half_life === 'number' &&
        Number.isFinite(v.engagement_half_life) &&
        v.engagement_half_life > 0 &&
        v.engagement_half_life <= 100_000))
  );
}

/** "recency 0.5" or "hot": a cold start as reports and logs name it. */
export function describeColdStart(shape: ColdStartShape): string {
  return shape === HOT_COLD_START ? 'hot' : `recency ${shape}`;
}

/** "collaborative 0.3, recency half-life 8 h, cold start recency 0.5" (then the engagement weight and the cap when not the shipped ones). */
export function describeRankingDefault(point: RankingDefault): string {
  const p = completeRankingDefault(point);
  const engagement = p.content_engagement === SHIPPED_RANKING_DEFAULT.content_engagement ? '' : `, engagement ${p.content_engagement}`;
  const cap = p.per_author_cap === SHIPPED_RANKING_DEFAULT.per_author_cap ? '' : `, per-author cap ${p.per_author_cap}`;
  const pace =
    p.engagement_half_life === SHIPPED_RANKING_DEFAULT.engagement_half_life
      ? ''
      : `, engagement ${typeof p.engagement_half_life === 'number' ? `half-life ${p.engagement_half_life} h` : p.engagement_half_life}`;
  return `collaborative ${p.collaborative}, recency half-life ${p.recency_half_life_hours} h, cold start ${describeColdStart(p.cold_start_recency)}${engagement}${cap}${pace}`;
}
