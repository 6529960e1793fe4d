/**
 * Fitting the default ranking to a community (issue 25, item 4): which point of
 * src/ranking/ranking-default.ts ranks this community's own latest interactions best. The
 * `ranking_fit` agent runs it on the service's database; `recsvc eval --fit` runs it on the
 * history before an evaluation's cutoff (so the test period is never seen).
 *
 * The protocol is `recsvc eval`'s (a temporal holdout of the data given: each user asked
 * for a list at their first interaction in its last `testFraction`, by the server's ranking
 * code over the pool replayed to that instant), and the guard rails:
 * - **a minimum of data**: at least `minInteractions` interactions and `minUsers` evaluated
 *   users with history, else nothing changes (`insufficient`);
 * - **bounded change**: only the points one ladder step from the current one on each axis
 *   (collaborative weight, recency half-life) are tried, so one fit moves the default by at
 *   most one step, and the next fit, on newer data, decides whether to go on;
 * - **evidence**: the best point replaces the current one only when its paired per-user
 *   bootstrap interval of nDCG@K over the current one lies above 0 (`applied`), else the
 *   current one stays (`kept`).
 */
import {
  COLLABORATIVE_LADDER,
  describeRankingDefault,
  HALF_LIFE_LADDER_HOURS,
  rankingOf,
  type RankingDefault,
} from '../ranking/ranking-default.js';
import { bootstrapPairedDifference, drawResamples, type Estimate } from './bootstrap.js';
import { sampleUsers, temporalSplit, type EvalDataset, type Split, type TestUser } from './dataset.js';
import { EvalState } from './eval-context.js';
import { userMetrics } from './metrics.js';
import { rankingCandidate } from './rankers.js';

export interface FitOptions {
  readonly k: number;
  /** Share of the interactions the fit holds out (the newest). */
  readonly testFraction: number;
  /** At most this many evaluated users (a seeded sample, in time order). */
  readonly maxUsers: number;
  readonly minInteractions: number;
  /** Evaluated users with history needed before anything may change. */
  readonly minUsers: number;
  readonly samples: number;
  readonly seed: number;
}

export const DEFAULT_FIT_OPTIONS: FitOptions = {
  k: 20,
  testFraction: 0.1,
  maxUsers: 400,
  minInteractions: 2_000,
  minUsers: 50,
  samples: 1_000,
  seed: 2026,
};

export type FitStatus = 'applied' | 'kept' | 'insufficient';

export interface FitPointResult {
  readonly point: RankingDefault;
  readonly ndcg: number;
}

export interface FitResult {
  readonly status: FitStatus;
  /** The point to use from now on (the current one unless `applied`). */
  readonly chosen: RankingDefault;
  readonly current: RankingDefault;
  /** One line for logs and the agent's summary. */
  readonly summary: string;
  readonly evidence: {
    readonly interactions: number;
    readonly cutoff: string | null;
    readonly users: number;
    readonly users_with_history: number;
    readonly points: readonly FitPointResult[];
    /** nDCG of the best point minus the current one's, paired, with its 95% interval. */
    readonly difference: Estimate | null;
  };
}

/** Hooks for a caller that must stay responsive (the server): called between users. */
export interface FitHooks {
  /** Awaited every few users (e.g. a turn of the event loop). */
  readonly pause?: () => Promise<void>;
  readonly signal?: AbortSignal;
}

/** The points one step from `current` on each ladder (itself included), current first. */
export function neighbourPoints(current: RankingDefault): RankingDefault[] {
  const around = (ladder: readonly number[], value: number): number[] => {
    // The rung nearest the value (an operator may have pinned an off-ladder value).
    let at = 0;
    for (let i = 1; i < ladder.length; i++) if (Math.abs((ladder[i] as number) - value) < Math.abs((ladder[at] as number) - value)) at = i;
    const near = [ladder[at - 1], ladder[at], ladder[at + 1]].filter((x): x is number => x !== undefined);
    return [value, ...near.filter((x) => x !== value)];
  };
  const out: RankingDefault[] = [];
  for (const collaborative of around(COLLABORATIVE_LADDER, current.collaborative))
    for (const recency_half_life_hours of around(HALF_LIFE_LADDER_HOURS, current.recency_half_life_hours))
      out.push({ collaborative, recency_half_life_hours });
  return out;
}

/** Fits on a data set's own newest interactions (the server's case). */
export async function fitRankingDefault(
  dataset: EvalDataset,
  current: RankingDefault,
  options: Partial<FitOptions> = {},
  hooks: FitHooks = {},
): Promise<FitResult> {
  const o = { ...DEFAULT_FIT_OPTIONS, ...options };
  if (dataset.interactions.length < o.minInteractions)
    return insufficient(
      current,
      dataset.interactions.length,
      null,
      0,
      0,
      `${dataset.interactions.length} interactions (at least ${o.minInteractions} needed)`,
    );
  return fitOnSplit(temporalSplit(dataset, { testFraction: o.testFraction }), current, o, hooks);
}

/** Fits on a split (`recsvc eval --fit` passes the validation split of its training part). */
export async function fitOnSplit(
  split: Split,
  current: RankingDefault,
  options: Partial<FitOptions> = {},
  hooks: FitHooks = {},
): Promise<FitResult> {
  const o = { ...DEFAULT_FIT_OPTIONS, ...options };
  const interactions = split.dataset.interactions.length;
  const cutoff = new Date(split.cutoffMs).toISOString();
  const users = sampleUsers(split.users, o.maxUsers, o.seed);
  const withHistory = users.filter((u) => u.history.length > 0).length;
  if (interactions < o.minInteractions)
    return insufficient(
      current,
      interactions,
      cutoff,
      users.length,
      withHistory,
      `${interactions} interactions (at least ${o.minInteractions} needed)`,
    );
  if (withHistory < o.minUsers)
    return insufficient(
      current,
      interactions,
      cutoff,
      users.length,
      withHistory,
      `${withHistory} returning users to evaluate (at least ${o.minUsers} needed)`,
    );

  const points = neighbourPoints(current);
  const state = new EvalState(split);
  const rankers = points.map((point) => {
    const { config, options: knobs } = rankingOf(point);
    return rankingCandidate('', config, state, knobs);
  });
  const values = points.map(() => new Float64Array(users.length));
  for (let u = 0; u < users.length; u++) {
    if (hooks.signal?.aborted) throw new Error('the fit was aborted');
    const user = users[u] as TestUser;
    state.advanceTo(user.atMs);
    rankers.forEach((r, i) => ((values[i] as Float64Array)[u] = userMetrics(r.rank(user, o.k), user.targets, o.k, () => 0).ndcg));
    state.release(user);
    if (hooks.pause !== undefined && u % 20 === 19) await hooks.pause();
  }
  const mean = (v: Float64Array): number => (v.length === 0 ? 0 : v.reduce((a, b) => a + b, 0) / v.length);
  const results = points.map((point, i) => ({ point, ndcg: mean(values[i] as Float64Array) }));
  let best = 0;
  for (let i = 1; i < results.length; i++)
    if ((results[i] as FitPointResult).ndcg > (results[best] as FitPointResult).ndcg + 1e-12) best = i;
  const evidenceOf = (difference: Estimate | null) => ({
    interactions,
    cutoff,
    users: users.length,
    users_with_history: withHistory,
    points: results,
    difference,
  });
  const currentNdcg = (results[0] as FitPointResult).ndcg;
  if (best === 0)
    return {
      status: 'kept',
      chosen: current,
      current,
      summary: `kept ${describeRankingDefault(current)}: no neighbouring point ranks better (nDCG@${o.k} ${currentNdcg.toFixed(4)}, ${users.length} users)`,
      evidence: evidenceOf(null),
    };
  // The point to move to: of those better than the current one beyond doubt and not worse
  // than the best beyond doubt, the one changing fewest axes (a change the evidence does not
  // ask for is not made), then the best.
  const resamples = drawResamples(users.length, o.samples, o.seed);
  const diff = (a: number, b: number): Estimate =>
    bootstrapPairedDifference(resamples, values[a] as Float64Array, values[b] as Float64Array);
  const changes = (p: RankingDefault): number =>
    (p.collaborative !== current.collaborative ? 1 : 0) + (p.recency_half_life_hours !== current.recency_half_life_hours ? 1 : 0);
  const order = results
    .map((_, i) => i)
    .filter((i) => i !== 0)
    .sort((a, b) => changes(results[a]!.point) - changes(results[b]!.point) || results[b]!.ndcg - results[a]!.ndcg);
  const bestResult = results[best] as FitPointResult;
  for (const i of order) {
    const overCurrent = diff(i, 0);
    if (!(overCurrent.ci_low > 0)) continue;
    if (i !== best && diff(best, i).ci_low > 0) continue;
    const chosen = (results[i] as FitPointResult).point;
    return {
      status: 'applied',
      chosen,
      current,
      summary: `applied ${describeRankingDefault(chosen)} (was ${describeRankingDefault(current)}): nDCG@${o.k} ${currentNdcg.toFixed(4)} -> ${(results[i] as FitPointResult).ndcg.toFixed(4)}, difference ${estimate(overCurrent)}, ${users.length} users`,
      evidence: evidenceOf(overCurrent),
    };
  }
  const difference = diff(best, 0);
  return {
    status: 'kept',
    chosen: current,
    current,
    summary: `kept ${describeRankingDefault(current)}: ${describeRankingDefault(bestResult.point)} is not better beyond doubt (nDCG@${o.k} ${currentNdcg.toFixed(4)} -> ${bestResult.ndcg.toFixed(4)}, difference ${estimate(difference)}, ${users.length} users)`,
    evidence: evidenceOf(difference),
  };
}

function estimate(e: Estimate): string {
  return `${e.value.toFixed(4)} [${e.ci_low.toFixed(4)}, ${e.ci_high.toFixed(4)}]`;
}

function insufficient(
  current: RankingDefault,
  interactions: number,
  cutoff: string | null,
  users: number,
  withHistory: number,
  why: string,
): FitResult {
  return {
    status: 'insufficient',
    chosen: current,
    current,
    summary: `kept ${describeRankingDefault(current)}: not enough data, ${why}`,
    evidence: { interactions, cutoff, users, users_with_history: withHistory, points: [], difference: null },
  };
}
