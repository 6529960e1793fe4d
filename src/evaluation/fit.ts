/**
 * Fitting the default ranking to a community (issue 25, item 4): which point of
 * src/ranking/ranking-default.ts ranks this community's own latest interactions best. The
 * `ranking_fit` agent runs it on the service's database; `recsvc eval --fit` runs it on the
 * history before an evaluation's cutoff (so the test period is never seen).
 *
 * The protocol is `recsvc eval`'s (a temporal holdout of the data given: each user asked
 * for a list at their first interaction in its last `testFraction`, or at its cutoff — half of
 * the users each way: `asks` — by the server's ranking code over the pool replayed to that
 * instant), and the guard rails:
 * - **a minimum of data**: at least `minInteractions` interactions and `minUsers` evaluated
 *   users with history, else nothing changes (`insufficient`);
 * - **bounded change**: only the points one ladder step from the current one are tried (the
 *   collaborative weight crossed with the recency half-life, and with the engagement weight and
 *   the cap per author: `neighbourPoints`), so one fit moves the default by at most one step on
 *   each axis, and the next fit, on newer data, decides whether to go on;
 * - **evidence**: the best point replaces the current one only when its paired per-user
 *   bootstrap difference of nDCG@K over the current one is above 0 at one-sided 95% (the lower
 *   end of the 90% interval; `applied`), else the current one stays (`kept`). The users are
 *   pooled from `folds` rolling validation folds, for power;
 * - **what is served**: when the search starts elsewhere than what is served (the shipped point,
 *   while a catalogue is served its starting point), where it ends must beat what is served by
 *   the same rule, else what is served stays (`fitSteps`, `served`).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { accountIdOfUser } from '../auth/user-account.js';
import { buildUserProfile } from '../ranking/profile.js';
import type { ItemModel, ItemModelOptions } from '../ranking/item-model.js';
import { rankCandidates } from '../ranking/rank.js';
import type { AlgorithmConfig, RankingKnobs } from '../ranking/ranking.types.js';
import {
  COLD_START_RECENCY_LADDER,
  COLLABORATIVE_LADDER,
  completeRankingDefault,
  describeColdStart,
  describeRankingDefault,
  ENGAGEMENT_LADDER,
  HALF_LIFE_LADDER_HOURS,
  HOT_COLD_START,
  PER_AUTHOR_CAP_LADDER,
  rankingOf,
  sameRankingDefault,
  type ColdStartShape,
  type RankingDefault,
} from '../ranking/ranking-default.js';
import { bootstrapPairedDifference, drawResamples, type Estimate } from './bootstrap.js';
import { sampleUsers, temporalSplit, validationSplit, type EvalDataset, type Split, type TestUser } from './dataset.js';
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
  /** Successive steps one fit may take (`fitSteps`). */
  readonly steps: number;
  /**
   * The periodic item–item model the collaborative feature reads beside the co-engagement state,
   * built at the fit's cutoff as the server builds it (default: the server's options); null: none.
   */
  readonly itemModel: Partial<ItemModelOptions> | null;
  /**
   * Validation folds: the split, then its training part split again the same way, and so on
   * (rolling origin), their users pooled: three times the users of one fold for the paired
   * intervals (a catalogue's next rung gains 0.002–0.005 nDCG@20, about what 500 users' interval
   * spans: one fold could not tell; bench/README.md, 2026-11-28).
   */
  readonly folds: number;
  /**
   * A move needs the lower end of its paired difference's two-sided 1 − alpha interval above 0:
   * at 0.1, a one-sided 95% bound (is the move better, not does it differ).
   */
  readonly alpha: number;
  /**
   * What is served now when the search starts elsewhere (the pace's starting point before any
   * fit, while the search starts from the shipped point): a search that moved must also beat it
   * beyond doubt, else it stays (`fitSteps`). null: the search's start is what is served.
   */
  readonly served: RankingDefault | null;
  /**
   * When the fit's users are asked (`AskAt`): `both` (default) gives half of each fold's users
   * at the fold's cutoff, all at once, as an evaluator who replays a history and then asks does,
   * and half at their own first instant after it, as a live service's users come back; the
   * points are judged on the pooled users. On the synthetic slow feed one seed's fit asked at
   * the own instants only chose 72 h, below hot asked at the cutoff (0.365 against 0.378); the
   * pooled fit chose 24 h there (0.399; 0.327 against 0.343 at the own instants), every other
   * feed's fit the same point as before (bench/README.md, "A feed's recency at its pace").
   * `first-interaction`: only the own instants (the fit until 2026-11-29).
   */
  readonly asks: 'both' | 'first-interaction';
  /**
   * The cold start is judged on the folds' own newcomers (users without history, every one up
   * to `maxUsers`, asked as `asks` says; not the returning users of a bounded read,
   * `EvalDataset.returning`) when they number at least this many, else on every
   * sampled user ranked as a newcomer (`coldJudge`). Returning users ranked without their
   * history are a proxy: on the bench's data they preferred the shipped share of recency to
   * "hot" (0.239 against 0.227) while its real newcomers preferred "hot" (0.116 against 0.096;
   * the test's newcomers in `recsvc eval`: 0.087 against 0.074).
   */
  readonly minNewcomers: number;
}

export const DEFAULT_FIT_OPTIONS: FitOptions = {
  steps: 1,
  k: 20,
  testFraction: 0.1,
  maxUsers: 1_500,
  minInteractions: 2_000,
  minUsers: 50,
  samples: 1_000,
  seed: 2026,
  itemModel: {},
  alpha: 0.1,
  folds: 3,
  served: null,
  asks: 'both',
  minNewcomers: 200,
};

export type FitStatus = 'applied' | 'kept' | 'insufficient';

export interface FitPointResult {
  readonly point: RankingDefault;
  readonly ndcg: number;
}

/** A cold start (a share of recency, or "hot"), judged by nDCG on the fit's cold judges (`ColdJudge`). */
export interface FitColdResult {
  readonly cold_start_recency: ColdStartShape;
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
    /** Of `users`, those asked at their fold's cutoff (`asks`; absent in a fit stored before it: none). */
    readonly users_at_cutoff?: number;
    readonly points: readonly FitPointResult[];
    /** nDCG of the best point minus the current one's, paired, with its 95% interval. */
    readonly difference: Estimate | null;
    /**
     * The cold starts tried (at the chosen half-life), the chosen one minus the current one's, and
     * whom they were judged on (absent in a fit stored before it: every sampled user as a newcomer).
     */
    readonly cold?: {
      readonly points: readonly FitColdResult[];
      readonly difference: Estimate | null;
      readonly judged_on?: ColdJudge;
      readonly users?: number;
    };
  };
}

/** The split and `folds − 1` earlier ones, each the previous one's training part split again (`validationSplit`). */
export function foldSplits(split: Split, folds: number): Split[] {
  const out = [split];
  while (out.length < Math.max(1, Math.floor(folds)) && (out[out.length - 1] as Split).train.length > 0)
    out.push(validationSplit(out[out.length - 1] as Split));
  return out;
}

/**
 * What successive steps on the same split share (`fitSteps`): each fold's item model, and each
 * point's per-user nDCG (the same folds, the same users), so that a step ranks only with the
 * points the steps before it did not try, and builds no model again.
 */
export interface FitMemo {
  readonly models: Map<number, ItemModel>;
  readonly warm: Map<string, Float64Array>;
  readonly cold: Map<string, Float64Array>;
  /** The folds and their users, by the options that choose them (`foldsOf`). */
  readonly folds: Map<string, FoldSet>;
}

/** An empty memo. */
export function newFitMemo(): FitMemo {
  return { models: new Map(), warm: new Map(), cold: new Map(), folds: new Map() };
}

/** Hooks for a caller: called between users. */
export interface FitHooks {
  /** Awaited every few users and between folds, after the turn of the event loop the fit takes there anyway. */
  readonly pause?: () => Promise<void>;
  readonly signal?: AbortSignal;
}

/**
 * The least relative gain in mean nDCG@K that turns the collaborative feature on (from 0): it
 * reads each user's co-engaged posts and ranks the ones it fetches beside the pool, about three
 * times a plain first request's CPU (bench/README.md, "A collaborative first request"). On the
 * bench's data (10,000 posts, 200,000 random-ish interactions) the fit found collaborative 0.3
 * +0.0074 nDCG@20 over 0.198 (+3.7%), and applied mid-run it dropped every cached list into
 * misses three times dearer (warm throughput at c=50 fell to 73 req/s); on the synthetic
 * catalogues the same step gains +27% and more (0.097 -> 0.124), and a catalogue starts with it
 * on anyway (CATALOGUE_RANKING_DEFAULT). A gain under a tenth does not pay for the cost.
 */
export const COLLABORATIVE_SWITCH_GAIN = 0.1;

/** Whether a move from `current` to `point` may be made on these means: any move but the collaborative feature switched on below COLLABORATIVE_SWITCH_GAIN. */
export function collaborativePays(current: RankingDefault, point: RankingDefault, currentNdcg: number, pointNdcg: number): boolean {
  if (current.collaborative > 0 || !(point.collaborative > 0)) return true;
  return pointNdcg >= currentNdcg * (1 + COLLABORATIVE_SWITCH_GAIN);
}

/**
 * The least gain in mean nDCG@K a move needs besides its interval above 0: a difference
 * "beyond doubt" because a handful of users moved by a hair (a shorter half-life reordering
 * two posts) is no reason to change what everyone is served.
 */
export const MIN_FIT_GAIN = 0.001;

/** Whether a paired difference says "better beyond doubt": its interval above 0 and a gain of at least MIN_FIT_GAIN. */
function beyondDoubt(difference: Estimate): boolean {
  return difference.ci_low > 0 && difference.value >= MIN_FIT_GAIN;
}

/** The rung nearest `value` and its neighbours on `ladder`, `value` first (an operator may have pinned an off-ladder value). */
function around(ladder: readonly number[], value: number): number[] {
  let at = 0;
  for (let i = 1; i < ladder.length; i++) if (Math.abs((ladder[i] as number) - value) < Math.abs((ladder[at] as number) - value)) at = i;
  const near = [ladder[at - 1], ladder[at], ladder[at + 1]].filter((x): x is number => x !== undefined);
  return [value, ...near.filter((x) => x !== value)];
}

/**
 * The points one step from `current`, itself first: the collaborative weight one rung each
 * way with, at once, the recency half-life one rung each way (a grid), or the engagement
 * weight one rung each way and the other cap per author (a grid too). Half-life against
 * engagement and cap is not crossed: 24 points instead of 54 to rank with for each user.
 */
export function neighbourPoints(current: RankingDefault): RankingDefault[] {
  const c = completeRankingDefault(current);
  const out: RankingDefault[] = [];
  for (const collaborative of around(COLLABORATIVE_LADDER, c.collaborative))
    for (const recency_half_life_hours of around(HALF_LIFE_LADDER_HOURS, c.recency_half_life_hours))
      out.push({ ...c, collaborative, recency_half_life_hours });
  for (const collaborative of around(COLLABORATIVE_LADDER, c.collaborative))
    for (const content_engagement of around(ENGAGEMENT_LADDER, c.content_engagement))
      for (const per_author_cap of around(PER_AUTHOR_CAP_LADDER, c.per_author_cap))
        if (content_engagement !== c.content_engagement || per_author_cap !== c.per_author_cap)
          out.push({ ...c, collaborative, content_engagement, per_author_cap });
  return out;
}

/**
 * The cold starts one step from `value` (itself first): a share's ladder neighbours and, judged
 * by the community's own newcomers (`byNewcomers`), "hot", which sits beside the ladder; from
 * "hot", every share. "Hot" is a shape rather than a rung: on the synthetic feeds the share 0.5
 * ranks newcomers above it and 0.75 below, so on a ladder's end it could never be reached where
 * it is best. Judged by the proxy (returning users ranked as newcomers) it is neither offered nor
 * left: the proxy misjudged it both ways — on the bench's data it preferred 0.5 where the real
 * newcomers preferred "hot" (0.239 / 0.227 against 0.096 / 0.116), on the synthetic slow feed
 * "hot" where the test's newcomers preferred 0.5 (0.353 against 0.374).
 */
export function neighbourColdShares(value: ColdStartShape, byNewcomers = true): ColdStartShape[] {
  if (value === HOT_COLD_START) return byNewcomers ? [value, ...COLD_START_RECENCY_LADDER] : [value];
  const shares: ColdStartShape[] = around(COLD_START_RECENCY_LADDER, value);
  return byNewcomers ? [...shares, HOT_COLD_START] : shares;
}

/**
 * Successive fits (`recsvc eval --fit`, and the agent's run): each on the same split, each
 * moving at most one ladder step on each axis and only on evidence, until one keeps its point
 * or `steps` ran. The result is the last fit's, with every step's summary joined.
 */
export async function fitSteps(
  split: Split,
  current: RankingDefault,
  steps: number,
  options: Partial<FitOptions> = {},
  hooks: FitHooks = {},
): Promise<FitResult & { readonly steps: readonly string[] }> {
  let point = current;
  const summaries: string[] = [];
  let last: FitResult | undefined;
  let applied: FitResult | undefined;
  const memo = newFitMemo();
  for (let step = 0; step < Math.max(1, steps); step++) {
    last = await fitOnSplit(split, point, options, hooks, memo);
    summaries.push(last.summary);
    if (last.status !== 'applied') break;
    applied = last;
    point = last.chosen;
  }
  const result = last as FitResult;
  if (applied === undefined) return { ...result, steps: summaries };
  const served = options.served ?? null;
  if (served !== null && !sameRankingDefault(served, point)) {
    // The search moved from its start, but what is served is another point: it must beat that
    // too — the warm axes on the sampled users, the cold start on its own judges, each apart (a
    // cold start judged with the warm points would be judged on the few newcomers among them).
    const o = { ...DEFAULT_FIT_OPTIONS, ...options };
    const now = completeRankingDefault(served);
    const reached = completeRankingDefault(point);
    const warmReached = { ...reached, cold_start_recency: now.cold_start_recency };
    let chosen = now;
    let difference: Estimate | null = null;
    if (!sameRankingDefault(warmReached, now)) {
      const [a, b] = [await pointValues(split, warmReached, o, hooks, memo), await pointValues(split, now, o, hooks, memo)];
      difference = bootstrapPairedDifference(drawResamples(a.length, o.samples, o.seed), a, b, o.alpha);
      if (beyondDoubt(difference)) chosen = warmReached;
      else
        summaries.push(
          `kept ${describeRankingDefault(served)} (served): the search reached ${describeRankingDefault(warmReached)}, not better than it beyond doubt (nDCG@${o.k} ${mean(b).toFixed(4)} -> ${mean(a).toFixed(4)}, difference ${estimate(difference)})`,
        );
    }
    if (reached.cold_start_recency !== now.cold_start_recency) {
      const withCold = { ...chosen, cold_start_recency: reached.cold_start_recency };
      const [a, b] = [await coldPointValues(split, withCold, o, hooks, memo), await coldPointValues(split, chosen, o, hooks, memo)];
      const coldDifference = bootstrapPairedDifference(drawResamples(a.length, o.samples, o.seed), a, b, o.alpha);
      if (beyondDoubt(coldDifference)) chosen = withCold;
      else
        summaries.push(
          `kept the served cold start ${describeColdStart(now.cold_start_recency)}: ${describeColdStart(reached.cold_start_recency)} not better than it beyond doubt (nDCG@${o.k} ${mean(b).toFixed(4)} -> ${mean(a).toFixed(4)}, difference ${estimate(coldDifference)})`,
        );
    }
    if (sameRankingDefault(chosen, now))
      return {
        ...result,
        status: 'kept',
        current: served,
        chosen: served,
        summary: summaries.join('; '),
        evidence: { ...result.evidence, difference: difference ?? result.evidence.difference },
        steps: summaries,
      };
    point = chosen;
  }
  // Something moved: the run is "applied", from where it started to where it stopped.
  return {
    ...result,
    status: 'applied',
    current,
    chosen: point,
    summary: `applied ${describeRankingDefault(point)} (was ${describeRankingDefault(current)}) in ${summaries.length} step(s): ${summaries.join('; ')}`,
    steps: summaries,
  };
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
  return fitSteps(temporalSplit(dataset, { testFraction: o.testFraction }), current, o.steps, o, hooks);
}

/** Fits on a split (`recsvc eval --fit` passes the validation split of its training part). */
export async function fitOnSplit(
  split: Split,
  current: RankingDefault,
  options: Partial<FitOptions> = {},
  hooks: FitHooks = {},
  memo: FitMemo = newFitMemo(),
): Promise<FitResult> {
  const o = { ...DEFAULT_FIT_OPTIONS, ...options };
  const interactions = split.dataset.interactions.length;
  const cutoff = new Date(split.cutoffMs).toISOString();
  const { folds, visits, users, atCutoff, coldUsers, coldJudge } = await foldsOf(split, o, memo);
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
  const values = points.map((point) => memo.warm.get(warmKey(point)) ?? new Float64Array(users.length));
  // The points no earlier step on these users ranked with.
  const toRank = points.flatMap((point, i) => (memo.warm.has(warmKey(point)) ? [] : [i]));
  // The cold start, judged on every sampled user ranked as a newcomer (their own posts left
  // out): far more users than those without history, and the same regime. Each share at each
  // half-life tried, since the half-life the warm points choose is the cold start's too.
  const halfLives = [...new Set(points.map((p) => p.recency_half_life_hours))];
  const coldShares = neighbourColdShares(completeRankingDefault(current).cold_start_recency, coldJudge === 'newcomers');
  const cap = completeRankingDefault(current).per_author_cap;
  // One array per cold start ranked: "hot" reads no half-life, so its key (and values) serve every one.
  const coldToRank = new Map<string, { values: Float64Array; config: AlgorithmConfig; knobs: RankingKnobs }>();
  const coldValues = halfLives.map((h) =>
    coldShares.map((c) => {
      const key = coldKey(h, c, cap);
      const known = memo.cold.get(key) ?? coldToRank.get(key)?.values;
      if (known !== undefined) return known;
      const values = new Float64Array(coldUsers.length);
      const { config, options: knobs } = rankingOf({
        collaborative: 0,
        recency_half_life_hours: h,
        cold_start_recency: c,
        per_author_cap: cap,
      });
      coldToRank.set(key, { values, config, knobs });
      return values;
    }),
  );
  if (toRank.length > 0 || coldToRank.size > 0)
    await replayFolds(folds, visits, o, hooks, memo, (state) => {
      const rankers = toRank.map((i) => {
        const { config, options: knobs } = rankingOf(points[i]!);
        return { i, ranker: rankingCandidate('', config, state, knobs) };
      });
      return (user, u, cu) => {
        if (u >= 0)
          for (const { i, ranker } of rankers) values[i]![u] = userMetrics(ranker.rank(user, o.k), user.targets, o.k, () => 0).ndcg;
        if (coldToRank.size === 0 || cu < 0) return;
        const newcomer = asNewcomer(state, user);
        for (const { values: cold, config, knobs } of coldToRank.values()) cold[cu] = newcomer(config, knobs, o.k);
      };
    });
  for (const i of toRank) memo.warm.set(warmKey(points[i]!), values[i]!);
  for (const [key, { values: cold }] of coldToRank) memo.cold.set(key, cold);
  const results = points.map((point, i) => ({ point, ndcg: mean(values[i] as Float64Array) }));
  const resamples = drawResamples(users.length, o.samples, o.seed);
  const warm = decideWarm(results, values, current, resamples, o.k, users.length, o.alpha);

  // The cold start at the half-life chosen: a move of one step, on an interval above 0.
  const h = halfLives.indexOf(warm.chosen.recency_half_life_hours);
  const coldRow = coldValues[h < 0 ? 0 : h] as Float64Array[];
  const coldResults = coldShares.map((share, c) => ({ cold_start_recency: share, ndcg: mean(coldRow[c] as Float64Array) }));
  let bestCold = 0;
  for (let c = 1; c < coldResults.length; c++) if (coldResults[c]!.ndcg > coldResults[bestCold]!.ndcg + 1e-12) bestCold = c;
  const coldResamples = coldUsers.length === users.length ? resamples : drawResamples(coldUsers.length, o.samples, o.seed);
  const coldDifference = bestCold === 0 ? null : bootstrapPairedDifference(coldResamples, coldRow[bestCold]!, coldRow[0]!, o.alpha);
  const coldMoves = coldDifference !== null && beyondDoubt(coldDifference);
  const chosen = completeRankingDefault({
    ...warm.chosen,
    cold_start_recency: coldMoves ? coldShares[bestCold]! : coldShares[0]!,
  });
  const judgedOn = coldJudge === 'newcomers' ? `of ${coldUsers.length} newcomers` : 'as newcomers';
  const coldSummary = coldMoves
    ? `; cold start ${describeColdStart(coldShares[0]!)} -> ${describeColdStart(coldShares[bestCold]!)} (nDCG@${o.k} ${judgedOn} ${coldResults[0]!.ndcg.toFixed(4)} -> ${coldResults[bestCold]!.ndcg.toFixed(4)}, difference ${estimate(coldDifference)})`
    : `; cold start ${describeColdStart(coldShares[0]!)} kept (nDCG@${o.k} ${judgedOn} ${coldResults[0]!.ndcg.toFixed(4)})`;
  const applied = !sameRankingDefault(chosen, current);
  const summary = applied
    ? `applied ${describeRankingDefault(chosen)} (was ${describeRankingDefault(current)}): ${warm.summary}${coldSummary}`
    : `kept ${describeRankingDefault(current)}: ${warm.summary}${coldSummary}`;
  return {
    status: applied ? 'applied' : 'kept',
    chosen: applied ? chosen : current,
    current,
    summary,
    evidence: {
      interactions,
      cutoff,
      users: users.length,
      users_with_history: withHistory,
      users_at_cutoff: atCutoff,
      points: results,
      difference: warm.difference,
      cold: { points: coldResults, difference: coldDifference, judged_on: coldJudge, users: coldUsers.length },
    },
  };
}

/**
 * Whom the cold start is judged on (`FitOptions.minNewcomers`): the folds' own newcomers, or
 * every sampled user ranked as a newcomer (their history set aside).
 */
export type ColdJudge = 'newcomers' | 'users as newcomers';

/** One user's turn in a fold's replay: their index among the sampled users and among the cold start's (−1: not one of them). */
interface Visit {
  readonly user: TestUser;
  readonly u: number;
  readonly cu: number;
}

/** The folds of a split and the users each is evaluated on, numbered across the folds in order. */
interface FoldSet {
  readonly folds: readonly Split[];
  /** Per fold, in time order: the sampled users and the cold start's users, each once. */
  readonly visits: readonly (readonly Visit[])[];
  /** The sampled users (the warm points' judges). */
  readonly users: readonly TestUser[];
  /** Of `users`, those asked at their fold's cutoff. */
  readonly atCutoff: number;
  /** The cold start's judges (`coldJudge`). */
  readonly coldUsers: readonly TestUser[];
  readonly coldJudge: ColdJudge;
}

/**
 * The folds of a split and the users each is evaluated on (maxUsers shared between them, the
 * first ones taking the remainder); with `asks` both, half of a fold's are asked at its cutoff
 * (they come first: the replay runs forward, and every own instant is at or after the cutoff).
 * The folds' newcomers are drawn the same way from those without history, and judge the cold
 * start when there are `minNewcomers` of them. Built once per memo, with a turn of the event
 * loop between the temporal splits it makes (each a pass over the whole history: seconds on a
 * large one).
 */
async function foldsOf(split: Split, o: FitOptions, memo: FitMemo): Promise<FoldSet> {
  const key = `${o.folds}/${o.maxUsers}/${o.seed}/${o.asks}/${o.minNewcomers}`;
  const known = memo.folds.get(key);
  if (known !== undefined) return known;
  const folds = foldSplits(split, o.folds);
  const share = (f: number): number => Math.floor(o.maxUsers / folds.length) + (f < o.maxUsers % folds.length ? 1 : 0);
  // Not a user whose history began before the data's window (a bounded read): returning, not new.
  const { returning } = split.dataset;
  const newcomers = (users: readonly TestUser[]): TestUser[] =>
    users.filter((user) => user.history.length === 0 && !returning.has(user.userId));
  let atCutoff = 0;
  const foldUsers: TestUser[][] = [];
  const foldNewcomers: TestUser[][] = [];
  for (const [f, fold] of folds.entries()) {
    if (o.asks === 'first-interaction') {
      foldUsers.push(sampleUsers(fold.users, share(f), o.seed + f));
      foldNewcomers.push(sampleUsers(newcomers(fold.users), share(f), o.seed + f));
      continue;
    }
    await nextTurn();
    const asked = temporalSplit(fold.dataset, { cutoffMs: fold.cutoffMs, endMs: fold.endMs, askAt: 'cutoff' }).users;
    const half = Math.floor(share(f) / 2);
    const cutoffUsers = sampleUsers(asked, half, o.seed + CUTOFF_SEED_OFFSET + f);
    atCutoff += cutoffUsers.length;
    foldUsers.push([...cutoffUsers, ...sampleUsers(fold.users, share(f) - cutoffUsers.length, o.seed + f)]);
    const cutoffNewcomers = sampleUsers(newcomers(asked), half, o.seed + CUTOFF_SEED_OFFSET + f);
    foldNewcomers.push([...cutoffNewcomers, ...sampleUsers(newcomers(fold.users), share(f) - cutoffNewcomers.length, o.seed + f)]);
  }
  const coldJudge: ColdJudge = foldNewcomers.flat().length >= o.minNewcomers ? 'newcomers' : 'users as newcomers';
  const coldFolds = coldJudge === 'newcomers' ? foldNewcomers : foldUsers;
  let u = 0;
  let cu = 0;
  const visits = foldUsers.map((sampled, f) => {
    const byUser = new Map<TestUser, { u: number; cu: number }>();
    for (const user of sampled) byUser.set(user, { u: u++, cu: -1 });
    for (const user of coldFolds[f]!) {
      const visit = byUser.get(user);
      if (visit !== undefined) visit.cu = cu++;
      else byUser.set(user, { u: -1, cu: cu++ });
    }
    // Stable: the cutoff's users (sampled, then newcomers) before the own instants, each in time order.
    return [...byUser].map(([user, at]) => ({ user, ...at })).sort((a, b) => a.user.atMs - b.user.atMs);
  });
  const set: FoldSet = { folds, visits, users: foldUsers.flat(), atCutoff, coldUsers: coldFolds.flat(), coldJudge };
  memo.folds.set(key, set);
  return set;
}

/** Seeds the sample of users asked at a fold's cutoff apart from its own-instant sample. */
const CUTOFF_SEED_OFFSET = 1_000;

/**
 * Replays each fold in turn (one state held at a time, its item model built once per memo) and
 * calls what `atFold` returns for each visit at its user's instant (`u`, `cu`: the user's index
 * among the sampled users and among the cold start's, −1 when not one of them).
 */
async function replayFolds(
  folds: readonly Split[],
  visits: readonly (readonly Visit[])[],
  o: FitOptions,
  hooks: FitHooks,
  memo: FitMemo,
  atFold: (state: EvalState) => (user: TestUser, u: number, cu: number) => void,
): Promise<void> {
  let n = 0;
  for (let f = 0; f < folds.length; f++) {
    // Building a fold's state (and its item model) is seconds of work on a large history.
    if (f > 0) await breathe(hooks);
    const state = new EvalState(folds[f]!, {}, {}, o.itemModel ?? undefined, memo.models.get(f));
    if (state.itemModel !== undefined) memo.models.set(f, state.itemModel);
    const atUser = atFold(state);
    for (const { user, u, cu } of visits[f]!) {
      if (hooks.signal?.aborted) throw new Error('the fit was aborted');
      state.advanceTo(user.atMs);
      atUser(user, u, cu);
      state.release(user);
      n += 1;
      // A turn of the event loop every 20 users, whatever the caller's pause does: a fit runs for
      // a minute, and a thread that never yields cannot answer anything meanwhile (a test worker's
      // RPC timed out: "Timeout calling onTaskUpdate", CI 2026-11-28 and 29).
      if (n % 20 === 0) await breathe(hooks);
    }
  }
}

/** A point's per-user nDCG on the fit's users (from the memo when a step ranked with it). */
async function pointValues(split: Split, point: RankingDefault, o: FitOptions, hooks: FitHooks, memo: FitMemo): Promise<Float64Array> {
  const known = memo.warm.get(warmKey(point));
  if (known !== undefined) return known;
  const { folds, visits, users } = await foldsOf(split, o, memo);
  const values = new Float64Array(users.length);
  const { config, options: knobs } = rankingOf(point);
  await replayFolds(folds, visits, o, hooks, memo, (state) => {
    const ranker = rankingCandidate('', config, state, knobs);
    return (user, u) => {
      if (u >= 0) values[u] = userMetrics(ranker.rank(user, o.k), user.targets, o.k, () => 0).ndcg;
    };
  });
  memo.warm.set(warmKey(point), values);
  return values;
}

/**
 * The user at the state's instant ranked as a newcomer (an empty profile, their own earlier
 * posts left out): nDCG@k of a ranking's list for them.
 */
function asNewcomer(state: EvalState, user: TestUser): (config: AlgorithmConfig, knobs: RankingKnobs, k: number) => number {
  const profile = buildUserProfile({ userId: user.userId, accountId: accountIdOfUser(user.userId), interactions: [] }, state.index);
  const excludeIds = user.history.map((i) => i.postId);
  return (config, knobs, k) => {
    const list = rankCandidates(state.index, profile, config, { ...knobs, limit: k, nowMs: state.now, excludeIds });
    return userMetrics(
      list.map((item) => item.post.reblogOfId ?? item.post.id),
      user.targets,
      k,
      () => 0,
    ).ndcg;
  };
}

/** The memo's key of a cold start's values: the half-life ("hot" reads none) and the cap it ranks with, and its shape. */
const coldKey = (hours: number, shape: ColdStartShape, cap: number): string =>
  shape === HOT_COLD_START ? `${shape}|${cap}` : `${hours}|${shape}|${cap}`;

/** A cold start's per-user nDCG on the fit's cold judges, at a point's half-life and cap (from the memo when a step ranked with it). */
async function coldPointValues(split: Split, point: RankingDefault, o: FitOptions, hooks: FitHooks, memo: FitMemo): Promise<Float64Array> {
  const p = completeRankingDefault(point);
  const key = coldKey(p.recency_half_life_hours, p.cold_start_recency, p.per_author_cap);
  const known = memo.cold.get(key);
  if (known !== undefined) return known;
  const { folds, visits, coldUsers } = await foldsOf(split, o, memo);
  const values = new Float64Array(coldUsers.length);
  // As fitOnSplit ranks the cold starts it tries (only the half-life, the shape and the cap matter to a newcomer).
  const { config, options: knobs } = rankingOf({
    collaborative: 0,
    recency_half_life_hours: p.recency_half_life_hours,
    cold_start_recency: p.cold_start_recency,
    per_author_cap: p.per_author_cap,
  });
  await replayFolds(folds, visits, o, hooks, memo, (state) => (user, _u, cu) => {
    if (cu >= 0) values[cu] = asNewcomer(state, user)(config, knobs, o.k);
  });
  memo.cold.set(key, values);
  return values;
}

const warmKey = (point: RankingDefault): string => JSON.stringify(completeRankingDefault(point));
const mean = (v: Float64Array): number => (v.length === 0 ? 0 : v.reduce((a, b) => a + b, 0) / v.length);

/**
 * The warm points' verdict: of those better than the current one beyond doubt and not worse
 * than the best beyond doubt, the one changing fewest axes (a change the evidence does not
 * ask for is not made), then the best; else the current one.
 */
function decideWarm(
  results: readonly FitPointResult[],
  values: readonly Float64Array[],
  current: RankingDefault,
  resamples: ReturnType<typeof drawResamples>,
  k: number,
  users: number,
  alpha: number,
): { chosen: RankingDefault; summary: string; difference: Estimate | null } {
  const currentNdcg = results[0]!.ndcg;
  // A point that turns the collaborative feature on is a candidate only with a gain worth its cost.
  const candidate = (i: number): boolean => collaborativePays(current, results[i]!.point, currentNdcg, results[i]!.ndcg);
  let best = 0;
  for (let i = 1; i < results.length; i++) if (candidate(i) && results[i]!.ndcg > results[best]!.ndcg + 1e-12) best = i;
  if (best === 0)
    return {
      chosen: current,
      summary: `no neighbouring point ranks better (nDCG@${k} ${currentNdcg.toFixed(4)}, ${users} users)`,
      difference: null,
    };
  const diff = (a: number, b: number): Estimate => bootstrapPairedDifference(resamples, values[a]!, values[b]!, alpha);
  const was = completeRankingDefault(current);
  const changes = (point: RankingDefault): number => {
    const p = completeRankingDefault(point);
    return (
      (p.collaborative !== was.collaborative ? 1 : 0) +
      (p.recency_half_life_hours !== was.recency_half_life_hours ? 1 : 0) +
      (p.content_engagement !== was.content_engagement ? 1 : 0) +
      (p.per_author_cap !== was.per_author_cap ? 1 : 0)
    );
  };
  const order = results
    .map((_, i) => i)
    .filter((i) => i !== 0 && candidate(i))
    .sort((a, b) => changes(results[a]!.point) - changes(results[b]!.point) || results[b]!.ndcg - results[a]!.ndcg);
  for (const i of order) {
    const overCurrent = diff(i, 0);
    if (!beyondDoubt(overCurrent)) continue;
    if (i !== best && diff(best, i).ci_low > 0) continue;
    return {
      chosen: results[i]!.point,
      summary: `${warmAxes(results[i]!.point)}: nDCG@${k} ${currentNdcg.toFixed(4)} -> ${results[i]!.ndcg.toFixed(4)}, difference ${estimate(overCurrent)}, ${users} users`,
      difference: overCurrent,
    };
  }
  const difference = diff(best, 0);
  return {
    chosen: current,
    summary: `${warmAxes(results[best]!.point)} is not better beyond doubt (nDCG@${k} ${currentNdcg.toFixed(4)} -> ${results[best]!.ndcg.toFixed(4)}, difference ${estimate(difference)}, ${users} users)`,
    difference,
  };
}

/** "collaborative 0.3, recency half-life 8 h" (then the engagement weight and the cap when not the shipped ones). */
function warmAxes(point: RankingDefault): string {
  return describeRankingDefault(point).replace(/, cold start [^,]*/, '');
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

/** A turn of the event loop, then the caller's pause. */
async function breathe(hooks: FitHooks): Promise<void> {
  await nextTurn();
  await hooks.pause?.();
}
