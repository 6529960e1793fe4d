/**
 * Walks the test users in time order, replaying the data up to each user's instant and asking
 * every ranker for that user's list there, then reports each metric with its per-user
 * bootstrap interval, for users with history, users without and all, and the paired
 * difference of every candidate against every baseline (and against the first candidate).
 */
import { createRandom } from '../random.js';
import { bootstrapCoverage, bootstrapMean, bootstrapPairedDifference, drawResamples, type Estimate } from './bootstrap.js';
import type { TestUser } from './dataset.js';
import type { EvalState } from './eval-context.js';
import { EVAL_METRICS, selfInformation, USER_METRICS, userMetrics, type EvalMetricName, type UserMetricName } from './metrics.js';
import type { Ranker } from './rankers.js';

export const USER_GROUPS = ['with_history', 'without_history', 'all'] as const;
export type UserGroup = (typeof USER_GROUPS)[number];

export interface EvaluationOptions {
  /** List length cut-off (default 20). */
  readonly k: number;
  /** Bootstrap resamples (default 1,000). */
  readonly samples: number;
  readonly seed: number;
  /** 1 − confidence of the intervals (default 0.05). */
  readonly alpha: number;
  /** Evaluate at most this many test users (a seeded sample), or all. */
  readonly maxUsers?: number | undefined;
  /** Called after each evaluated user (how many so far, of how many): `recsvc eval`'s progress line. */
  readonly onUser?: ((done: number, total: number) => void) | undefined;
}

export const DEFAULT_EVALUATION_OPTIONS: EvaluationOptions = { k: 20, samples: 1000, seed: 2026, alpha: 0.05 };

export interface RankerResult {
  readonly name: string;
  readonly kind: 'candidate' | 'baseline';
  readonly metrics: Record<EvalMetricName, Estimate>;
}

/** `candidate − against` on one metric, paired over the same users. */
export interface Comparison extends Estimate {
  readonly candidate: string;
  readonly against: string;
  readonly metric: EvalMetricName;
}

export interface GroupResult {
  readonly group: UserGroup;
  readonly users: number;
  readonly rankers: readonly RankerResult[];
  /** The baseline with the highest nDCG@K in this group. */
  readonly best_baseline: string | null;
  readonly comparisons: readonly Comparison[];
}

export interface Evaluation {
  readonly k: number;
  readonly cutoff: string;
  readonly samples: number;
  readonly seed: number;
  readonly confidence: number;
  readonly data: {
    readonly posts: number;
    readonly interactions: number;
    readonly train_interactions: number;
    readonly catalogue: number;
    readonly pool: number;
    readonly test_users: number;
    readonly evaluated_users: number;
    /**
     * Of the evaluated users without history, those who interacted before the data's window (a
     * bounded read, `--max-interactions`: `EvalDataset.returning`): returning users ranked as
     * newcomers, not newcomers.
     */
    readonly returning_without_history: number;
  };
  readonly groups: readonly GroupResult[];
}

interface Lists {
  readonly ranker: Ranker;
  /** Per evaluated user: metrics, and the list as catalogue positions (coverage). */
  readonly values: Record<UserMetricName, Float64Array>;
  readonly positions: Int32Array[];
}

/** Evaluates the rankers on the split's test users (the state must not have moved past the first user's instant). */
export function evaluate(state: EvalState, rankers: readonly Ranker[], options: Partial<EvaluationOptions> = {}): Evaluation {
  const o = { ...DEFAULT_EVALUATION_OPTIONS, ...options };
  const users = testUsers(state.split.users, o.maxUsers, o.seed);
  const info = Float64Array.from(state.trainUsersOf, (n) => selfInformation(n, state.trainUsers));
  const selfInfo = (id: string): number => info[state.position.get(id) ?? -1] ?? selfInformation(0, state.trainUsers);
  const lists = rankers.map((ranker): Lists => ({
    ranker,
    values: Object.fromEntries(USER_METRICS.map((m) => [m, new Float64Array(users.length)])) as Record<UserMetricName, Float64Array>,
    positions: [],
  }));
  users.forEach((user, u) => {
    state.advanceTo(user.atMs);
    for (const l of lists) {
      const list = l.ranker.personal && user.history.length === 0 ? [] : l.ranker.rank(user, o.k);
      const metrics = userMetrics(list, user.targets, o.k, selfInfo);
      for (const m of USER_METRICS) l.values[m][u] = metrics[m];
      l.positions.push(Int32Array.from(list.flatMap((id) => (state.position.has(id) ? [state.position.get(id) as number] : []))));
    }
    state.release(user);
    o.onUser?.(u + 1, users.length);
  });
  const hasHistory = users.map((u) => u.history.length > 0);
  const groups = USER_GROUPS.map((group, g) => {
    const members = users.flatMap((_, i) => (group === 'all' || (group === 'with_history') === hasHistory[i] ? [i] : []));
    return groupResult(state, group, members, lists, hasHistory, { ...o, seed: o.seed + g });
  });
  return {
    k: o.k,
    cutoff: new Date(state.split.cutoffMs).toISOString(),
    samples: o.samples,
    seed: o.seed,
    confidence: 1 - o.alpha,
    data: {
      posts: state.split.dataset.posts.size,
      interactions: state.split.dataset.interactions.length,
      train_interactions: state.split.train.length,
      catalogue: state.catalogue.length,
      pool: state.index.size,
      test_users: state.split.users.length,
      evaluated_users: users.length,
      returning_without_history: users.filter((u) => u.history.length === 0 && state.split.dataset.returning.has(u.userId)).length,
    },
    groups,
  };
}

/** The test users in time order, or a seeded sample of `max` of them (still in time order). */
function testUsers(all: readonly TestUser[], max: number | undefined, seed: number): TestUser[] {
  if (max === undefined || all.length <= max) return [...all];
  const random = createRandom(seed ^ 0x5eed);
  const order = all.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order
    .slice(0, max)
    .sort((a, b) => a - b)
    .map((i) => all[i] as TestUser);
}

function groupResult(
  state: EvalState,
  group: UserGroup,
  members: number[],
  lists: readonly Lists[],
  hasHistory: readonly boolean[],
  o: EvaluationOptions,
): GroupResult {
  const anyCold = members.some((i) => !hasHistory[i]);
  // A personal baseline is not reported where some users have no history (it has no list for them).
  const shown = lists.filter((l) => !(l.ranker.personal && anyCold));
  const resamples = drawResamples(members.length, o.samples, o.seed);
  const pick = (values: Float64Array): Float64Array => Float64Array.from(members, (i) => values[i] as number);
  const positionsOf = (l: Lists): Int32Array[] => members.map((i) => l.positions[i] as Int32Array);
  const catalogue = state.catalogue.length;
  const rankers: RankerResult[] = shown.map((l) => {
    const metrics = {} as Record<EvalMetricName, Estimate>;
    for (const m of USER_METRICS) metrics[m] = bootstrapMean(resamples, pick(l.values[m]), o.alpha);
    metrics.coverage = bootstrapCoverage(resamples, positionsOf(l), catalogue, undefined, o.alpha);
    return { name: l.ranker.name, kind: l.ranker.kind, metrics };
  });
  const baselines = rankers.filter((r) => r.kind === 'baseline');
  const best = baselines.reduce<RankerResult | undefined>(
    (a, b) => (a === undefined || b.metrics.ndcg.value > a.metrics.ndcg.value ? b : a),
    undefined,
  );
  const candidates = shown.filter((l) => l.ranker.kind === 'candidate');
  const comparisons: Comparison[] = [];
  candidates.forEach((c, ci) => {
    const against = [...(ci > 0 ? [candidates[0] as Lists] : []), ...shown.filter((l) => l.ranker.kind === 'baseline')];
    for (const other of against) {
      for (const metric of EVAL_METRICS) {
        const estimate =
          metric === 'coverage'
            ? bootstrapCoverage(resamples, positionsOf(c), catalogue, positionsOf(other), o.alpha)
            : bootstrapPairedDifference(resamples, pick(c.values[metric]), pick(other.values[metric]), o.alpha);
        comparisons.push({ candidate: c.ranker.name, against: other.ranker.name, metric, ...estimate });
      }
    }
  });
  return { group, users: members.length, rankers, best_baseline: best?.name ?? null, comparisons };
}
