/**
 * Streaming sufficient statistics of one variant: users are added one at a time and
 * only O(metrics) numbers are kept, so a million users cost a few hundred bytes.
 * For each metric's (numerator x, denominator y) per user it keeps exact integer sums
 * and Welford-style running means and co-moments (Σ(x−x̄)², Σ(y−ȳ)², Σ(x−x̄)(y−ȳ)),
 * which stay accurate where raw sums of squares would cancel catastrophically.
 * With a per-user covariate c (CUPED's pre-experiment value, cuped.ts) it also keeps c̄,
 * Σ(c−c̄)², Σ(x−x̄)(c−c̄) and Σ(y−ȳ)(c−c̄) per metric; they are reported only when every user
 * of the variant had one.
 */
import { COUNT_KEYS, METRICS, METRIC_NAMES, type MetricName, type UserCounts } from '../metrics.js';

/** The sufficient statistics of one metric's per-user (numerator, denominator) pairs. */
export interface RatioMoments {
  n: number;
  sumX: number;
  sumY: number;
  meanX: number;
  meanY: number;
  /** Σ(x − x̄)² */
  m2x: number;
  /** Σ(y − ȳ)² */
  m2y: number;
  /** Σ(x − x̄)(y − ȳ) */
  cxy: number;
}

/** The co-moments of a metric's (x, y) with the per-user covariate c, over the same users. */
export interface CovariateMoments {
  n: number;
  meanC: number;
  /** Σ(c − c̄)² */
  m2c: number;
  /** Σ(x − x̄)(c − c̄) */
  cxc: number;
  /** Σ(y − ȳ)(c − c̄) */
  cyc: number;
}

const FIELDS = 11; // sumX, sumY, meanX, meanY, m2x, m2y, cxy, meanC, m2c, cxc, cyc
const METRIC_INDEX = new Map<MetricName, number>(METRIC_NAMES.map((metric, i) => [metric, i]));
const NUMERATOR = METRIC_NAMES.map((metric) => COUNT_KEYS.indexOf(METRICS[metric].numerator));
const DENOMINATOR = METRIC_NAMES.map((metric) => METRICS[metric].denominator.map((key) => COUNT_KEYS.indexOf(key)));

/** Per-variant streaming accumulator of the six metrics' moments. */
export class VariantAccumulator {
  readonly name: string;
  private count = 0;
  private covariateCount = 0;
  private readonly stats = new Float64Array(METRIC_NAMES.length * FIELDS);
  private readonly row = new Float64Array(COUNT_KEYS.length);

  constructor(name: string) {
    this.name = name;
  }

  /** Number of users added (users with zero denominators included). */
  get users(): number {
    return this.count;
  }

  /** Adds one user's counts (and pre-experiment covariate, when known). */
  add(counts: UserCounts, covariate?: number): void {
    COUNT_KEYS.forEach((key, i) => {
      this.row[i] = counts[key];
    });
    this.addRow(this.row, covariate);
  }

  /**
   * Adds one user from counts in COUNT_KEYS order (the CSV's column order), without
   * allocating. Welford: n += 1; δx = x − x̄; x̄ += δx/n; m2x += δx·(x − x̄); likewise y;
   * cxy += δx·(y − ȳ_new); the covariate alike (a user without one counts as c = 0 there, and
   * then covariateMoments reports nothing).
   */
  addRow(values: ArrayLike<number>, covariate?: number): void {
    const n = ++this.count;
    if (covariate !== undefined) this.covariateCount++;
    const c = covariate ?? 0;
    const s = this.stats;
    for (let m = 0; m < NUMERATOR.length; m++) {
      const x = values[NUMERATOR[m] as number] as number;
      let y = 0;
      for (const index of DENOMINATOR[m] as number[]) y += values[index] as number;
      const o = m * FIELDS;
      s[o] = (s[o] as number) + x;
      s[o + 1] = (s[o + 1] as number) + y;
      const dx = x - (s[o + 2] as number);
      const meanX = (s[o + 2] as number) + dx / n;
      const dy = y - (s[o + 3] as number);
      const meanY = (s[o + 3] as number) + dy / n;
      s[o + 2] = meanX;
      s[o + 3] = meanY;
      s[o + 4] = (s[o + 4] as number) + dx * (x - meanX);
      s[o + 5] = (s[o + 5] as number) + dy * (y - meanY);
      s[o + 6] = (s[o + 6] as number) + dx * (y - meanY);
      const dc = c - (s[o + 7] as number);
      const meanC = (s[o + 7] as number) + dc / n;
      s[o + 7] = meanC;
      s[o + 8] = (s[o + 8] as number) + dc * (c - meanC);
      s[o + 9] = (s[o + 9] as number) + dx * (c - meanC);
      s[o + 10] = (s[o + 10] as number) + dy * (c - meanC);
    }
  }

  /**
   * Folds another accumulator of the same variant into this one (Chan et al.'s pairwise
   * update: M2 = M2a + M2b + δ²·na·nb/n, C = Ca + Cb + δx·δy·na·nb/n), e.g. shards of a file.
   */
  merge(other: VariantAccumulator): void {
    const na = this.count;
    const nb = other.count;
    const n = na + nb;
    if (nb === 0) return;
    const s = this.stats;
    const t = other.stats;
    for (let o = 0; o < s.length; o += FIELDS) {
      const dx = (t[o + 2] as number) - (s[o + 2] as number);
      const dy = (t[o + 3] as number) - (s[o + 3] as number);
      const w = (na * nb) / n;
      s[o] = (s[o] as number) + (t[o] as number);
      s[o + 1] = (s[o + 1] as number) + (t[o + 1] as number);
      s[o + 2] = (s[o + 2] as number) + (dx * nb) / n;
      s[o + 3] = (s[o + 3] as number) + (dy * nb) / n;
      s[o + 4] = (s[o + 4] as number) + (t[o + 4] as number) + dx * dx * w;
      s[o + 5] = (s[o + 5] as number) + (t[o + 5] as number) + dy * dy * w;
      s[o + 6] = (s[o + 6] as number) + (t[o + 6] as number) + dx * dy * w;
      const dc = (t[o + 7] as number) - (s[o + 7] as number);
      s[o + 7] = (s[o + 7] as number) + (dc * nb) / n;
      s[o + 8] = (s[o + 8] as number) + (t[o + 8] as number) + dc * dc * w;
      s[o + 9] = (s[o + 9] as number) + (t[o + 9] as number) + dx * dc * w;
      s[o + 10] = (s[o + 10] as number) + (t[o + 10] as number) + dy * dc * w;
    }
    this.count = n;
    this.covariateCount += other.covariateCount;
  }

  /** The sufficient statistics of one metric. */
  moments(metric: MetricName): RatioMoments {
    const o = (METRIC_INDEX.get(metric) as number) * FIELDS;
    const s = this.stats;
    return {
      n: this.count,
      sumX: s[o] as number,
      sumY: s[o + 1] as number,
      meanX: s[o + 2] as number,
      meanY: s[o + 3] as number,
      m2x: s[o + 4] as number,
      m2y: s[o + 5] as number,
      cxy: s[o + 6] as number,
    };
  }

  /** The covariate co-moments of one metric; null unless every user (at least one) had a covariate. */
  covariateMoments(metric: MetricName): CovariateMoments | null {
    if (this.count === 0 || this.covariateCount !== this.count) return null;
    const o = (METRIC_INDEX.get(metric) as number) * FIELDS;
    const s = this.stats;
    return { n: this.count, meanC: s[o + 7] as number, m2c: s[o + 8] as number, cxc: s[o + 9] as number, cyc: s[o + 10] as number };
  }
}

/** Accumulators for the given variant names, keyed by name, in that order. */
export function createAccumulators(names: Iterable<string>): Map<string, VariantAccumulator> {
  return new Map([...names].map((name) => [name, new VariantAccumulator(name)]));
}
