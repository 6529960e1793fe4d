/**
 * `recsvc eval --tune`: searches the ranking weights on a validation split (the training part
 * split again in time, so the test period is never seen) for the best mean nDCG@K of users
 * with history (the weights only rank them: users without history get the cold-start
 * ranking), and returns a ready-to-create experiment variant. The search: a coarse grid over
 * the weight simplex (step 0.25), then moves of weight from one feature to another from the
 * best point so far, halving the step from 0.2 down to `minStep` when no move improves.
 * Each configuration is ranked by the server's own ranking code (rankers.ts). The search gives
 * the event loop a turn every few users (`YIELD_EVERY_USERS`): it runs for minutes on a large
 * history, and a process that never turns cannot show progress or answer anything else.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { CandidateIndexOptions } from '../ranking/candidate-index.js';
import { WeightsSchema } from '../experiments/experiment.schema.js';
import { DEFAULT_ALGORITHM_CONFIG, type AlgorithmConfig, type Weights } from '../ranking/ranking.types.js';
import { sampleUsers, validationSplit, type Split, type TestUser } from './dataset.js';
import { EvalState } from './eval-context.js';
import { userMetrics } from './metrics.js';
import { rankingCandidate } from './rankers.js';

export interface TuneOptions {
  readonly k: number;
  /** Validation users ranked per configuration (a seeded sample; default 300). */
  readonly maxUsers: number;
  /** The finest step of the search (default 0.05). */
  readonly minStep: number;
  readonly seed: number;
  /** Share of the training interactions in the validation period (default 0.1). */
  readonly validationFraction: number;
}

export const DEFAULT_TUNE_OPTIONS: TuneOptions = { k: 20, maxUsers: 300, minStep: 0.05, seed: 2026, validationFraction: 0.1 };

/** An experiment variant as `recsvc experiment create` accepts it. */
export interface VariantInputShape {
  readonly name: string;
  readonly description: string;
  readonly traffic_allocation: number;
  readonly is_control: boolean;
  readonly algorithm_config: AlgorithmConfig;
}

export interface TunedVariant {
  readonly variant: VariantInputShape;
  readonly description: string;
  readonly validation: {
    readonly cutoff: string;
    readonly users: number;
    readonly configurations: number;
    readonly default_ndcg: number;
    readonly tuned_ndcg: number;
  };
}

type WeightName = keyof Weights;

/** Users ranked (by every weighting) between two turns of the event loop. */
const YIELD_EVERY_USERS = 10;

/** Searches the weights on the validation split of `split`. */
export async function tuneWeights(
  split: Split,
  options: Partial<TuneOptions> = {},
  poolOptions: Partial<CandidateIndexOptions> = {},
): Promise<TunedVariant> {
  const o = { ...DEFAULT_TUNE_OPTIONS, ...options };
  const validation = validationSplit(split, o.validationFraction);
  const users = sampleUsers(
    validation.users.filter((u) => u.history.length > 0),
    o.maxUsers,
    o.seed,
  );
  // Every weight a variant may carry (the collaborative one included), from the schema experiments are created with.
  const names = Object.keys(WeightsSchema.properties) as WeightName[];
  const scores = new Map<string, number>();
  const known = (w: Weights): number => scores.get(keyOf(names, w)) ?? -Infinity;
  /** Scores the weightings not scored yet, in one replay (every weighting ranks each user at the same state). */
  const scoreAll = async (weightings: readonly Weights[]): Promise<void> => {
    const fresh = [...new Map(weightings.map((w) => [keyOf(names, w), w])).values()].filter((w) => !scores.has(keyOf(names, w)));
    if (fresh.length === 0) return;
    (await meanNdcg(validation, users, fresh, o.k, poolOptions)).forEach((value, i) =>
      scores.set(keyOf(names, fresh[i] as Weights), value),
    );
  };
  const grid = simplex(names.length, 4).map((point) => weightsOf(names, point));
  await scoreAll([DEFAULT_ALGORITHM_CONFIG.weights, ...grid]);
  let best = DEFAULT_ALGORITHM_CONFIG.weights;
  for (const w of grid) if (known(w) > known(best)) best = w;
  for (let step = 0.2; step >= o.minStep - 1e-12; step /= 2) {
    for (;;) {
      const moves: Weights[] = [];
      for (const from of names) {
        for (const to of names) {
          if (from !== to && (best[from] ?? 0) >= step - 1e-12)
            moves.push({ ...best, [from]: round((best[from] ?? 0) - step), [to]: round((best[to] ?? 0) + step) });
        }
      }
      await scoreAll(moves);
      const next = moves.reduce((a, b) => (known(b) > known(a) ? b : a), best);
      if (!(known(next) > known(best) + 1e-12)) break;
      best = next;
    }
  }
  const defaultNdcg = scores.get(keyOf(names, DEFAULT_ALGORITHM_CONFIG.weights)) as number;
  const tunedNdcg = known(best);
  const description = `Weights tuned offline by recsvc eval --tune: nDCG@${o.k} ${tunedNdcg.toFixed(4)} vs the default's ${defaultNdcg.toFixed(4)} on ${users.length} validation users with history (cutoff ${new Date(validation.cutoffMs).toISOString()}, ${scores.size} configurations).`;
  return {
    variant: {
      name: 'tuned',
      description,
      traffic_allocation: 50,
      is_control: false,
      algorithm_config: { weights: best, use_semantic_scoring: best.semantic_similarity > 0 },
    },
    description,
    validation: {
      cutoff: new Date(validation.cutoffMs).toISOString(),
      users: users.length,
      configurations: scores.size,
      default_ndcg: defaultNdcg,
      tuned_ndcg: tunedNdcg,
    },
  };
}

/** Mean nDCG@k of each weighting over the users (one replay: every weighting ranks each user at the same state). */
async function meanNdcg(
  split: Split,
  users: readonly TestUser[],
  weightings: readonly Weights[],
  k: number,
  poolOptions: Partial<CandidateIndexOptions>,
): Promise<number[]> {
  // The item model the server serves beside the co-engagement state, as for the candidates (a variant weighing collaborative reads it).
  const state = new EvalState(split, poolOptions, {}, {});
  const rankers = weightings.map((weights) => rankingCandidate('', { weights, use_semantic_scoring: true }, state));
  const sums = new Float64Array(rankers.length);
  for (const [u, user] of users.entries()) {
    if (u > 0 && u % YIELD_EVERY_USERS === 0) await nextTurn();
    state.advanceTo(user.atMs);
    rankers.forEach((r, i) => (sums[i] = (sums[i] as number) + userMetrics(r.rank(user, k), user.targets, k, () => 0).ndcg));
    state.release(user);
  }
  return Array.from(sums, (s) => (users.length === 0 ? 0 : s / users.length));
}

/** Points of the simplex with coordinates in multiples of 1/divisions (compositions of `divisions` into `parts`). */
export function simplex(parts: number, divisions: number): number[][] {
  const compositions = (n: number, k: number): number[][] =>
    k === 1 ? [[n]] : Array.from({ length: n + 1 }, (_, first) => compositions(n - first, k - 1).map((rest) => [first, ...rest])).flat();
  return compositions(divisions, parts).map((p) => p.map((x) => round(x / divisions)));
}

function weightsOf(names: readonly WeightName[], point: readonly number[]): Weights {
  return Object.fromEntries(names.map((n, i) => [n, point[i] ?? 0])) as Weights;
}

function keyOf(names: readonly WeightName[], w: Weights): string {
  // `collaborative` is optional (absent: 0).
  return names.map((n) => (w[n] ?? 0).toFixed(4)).join(',');
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/**
 * An experiment `recsvc experiment create --file` accepts: the default weights as the
 * control against the tuned variant, half the enrolled users each.
 */
export function tunedExperiment(tuned: TunedVariant): {
  name: string;
  description: string;
  traffic_percentage: number;
  variants: VariantInputShape[];
} {
  return {
    name: 'tuned weights (recsvc eval --tune)',
    description: tuned.description,
    traffic_percentage: 100,
    variants: [
      {
        name: 'control',
        description: 'The default weights',
        traffic_allocation: 50,
        is_control: true,
        algorithm_config: DEFAULT_ALGORITHM_CONFIG,
      },
      tuned.variant,
    ],
  };
}
