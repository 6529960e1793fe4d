/**
 * The per-user bootstrap: resample the test users with replacement B times (one seeded set of
 * resamples shared by every ranker, so differences are paired), recompute the statistic on
 * each resample, and take the percentile interval. Percentiles interpolate linearly between
 * order statistics (Hyndman & Fan type 7, numpy's default): q-th percentile of sorted x (n
 * values) = x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]), h = (n − 1)q.
 */
import { createRandom } from '../random.js';

/** B resamples of n users: row b holds the user positions drawn for resample b. */
export interface Resamples {
  readonly samples: number;
  readonly users: number;
  readonly positions: Int32Array;
}

/** Seeded resamples (the same seed, B and n give the same resamples). */
export function drawResamples(users: number, samples: number, seed: number): Resamples {
  const random = createRandom(seed);
  const positions = new Int32Array(users * samples);
  for (let i = 0; i < positions.length; i++) positions[i] = Math.floor(random() * users);
  return { samples, users, positions };
}

/** An estimate with its percentile interval. */
export interface Estimate {
  readonly value: number;
  readonly ci_low: number;
  readonly ci_high: number;
}

/** The q-quantile (q in [0, 1]) of ascending values, type 7. */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const h = (n - 1) * Math.min(1, Math.max(0, q));
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return (sorted[lo] as number) + (h - lo) * ((sorted[hi] as number) - (sorted[lo] as number));
}

/** The statistic's value on all users, and its (1 − alpha) percentile interval over the resamples. */
export function bootstrapStatistic(resamples: Resamples, statistic: (positions: ArrayLike<number>) => number, alpha = 0.05): Estimate {
  const { samples, users, positions } = resamples;
  const all = Int32Array.from({ length: users }, (_, i) => i);
  const values = new Float64Array(samples);
  for (let b = 0; b < samples; b++) values[b] = statistic(positions.subarray(b * users, (b + 1) * users));
  values.sort();
  return { value: statistic(all), ci_low: quantileSorted(values, alpha / 2), ci_high: quantileSorted(values, 1 - alpha / 2) };
}

/** The mean of per-user values with its bootstrap interval. */
export function bootstrapMean(resamples: Resamples, values: Float64Array, alpha = 0.05): Estimate {
  return bootstrapStatistic(resamples, (positions) => meanAt(values, positions), alpha);
}

/** The mean of paired per-user differences a − b with its bootstrap interval. */
export function bootstrapPairedDifference(resamples: Resamples, a: Float64Array, b: Float64Array, alpha = 0.05): Estimate {
  const d = a.map((x, i) => x - (b[i] as number));
  return bootstrapMean(resamples, d, alpha);
}

function meanAt(values: Float64Array, positions: ArrayLike<number>): number {
  if (positions.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < positions.length; i++) sum += values[positions[i] as number] as number;
  return sum / positions.length;
}

/**
 * Catalogue coverage of the resampled users' lists (each list as item numbers below
 * `catalogueSize`), with its interval; `other` gives the paired difference of two rankers.
 * Coverage is not a mean: a resample holds only about 63% distinct users, so its coverage is
 * biased low. The percentile interval is therefore shifted by the bootstrap's bias (the
 * value on all users minus the mean over the resamples), which centres it on the value.
 */
export function bootstrapCoverage(
  resamples: Resamples,
  lists: readonly Int32Array[],
  catalogueSize: number,
  other?: readonly Int32Array[],
  alpha = 0.05,
): Estimate {
  const mark = new Int32Array(Math.max(1, catalogueSize));
  let stamp = 0;
  const coverage = (of: readonly Int32Array[], positions: ArrayLike<number>): number => {
    stamp += 1;
    let distinct = 0;
    for (let i = 0; i < positions.length; i++) {
      const list = of[positions[i] as number] as Int32Array;
      for (let j = 0; j < list.length; j++) {
        const item = list[j] as number;
        if (mark[item] !== stamp) {
          mark[item] = stamp;
          distinct += 1;
        }
      }
    }
    return catalogueSize > 0 ? distinct / catalogueSize : 0;
  };
  const statistic = (p: ArrayLike<number>): number => coverage(lists, p) - (other === undefined ? 0 : coverage(other, p));
  const { samples, users, positions } = resamples;
  let sum = 0;
  for (let b = 0; b < samples; b++) sum += statistic(positions.subarray(b * users, (b + 1) * users));
  const raw = bootstrapStatistic(resamples, statistic, alpha);
  const bias = samples === 0 ? 0 : raw.value - sum / samples;
  return { value: raw.value, ci_low: raw.ci_low + bias, ci_high: raw.ci_high + bias };
}
