/**
 * The intervals the `bounds` gate rule judges (gates.ts): one per variant and gate, at the
 * experiment's confidence level 1 − γ, two-sided, by the experiment's analysis method.
 *
 * The multiplier c(n) of every interval is the half-width per unit standard error that
 * sequential.ts gives its comparisons (TestMethod.halfWidth with SE = 1), so the gates and the
 * analysis share one boundary:
 * - fixed: c = Φ⁻¹(1 − γ/2), valid for one planned read;
 * - sequential: c(n) = √((1 + 1/r)·(ln(1 + r) − 2·ln γ)), r = n·ρ², the normal-mixture boundary
 *   (mSPRT) tuned narrowest at n* = max(2, minimum_sample_size) units of the one variant:
 *   ρ² = (−2·ln γ + ln(1 − 2·ln γ)) / n*. The interval is then a confidence sequence: it
 *   holds at every read at once, so the gates agent may re-check every minute and block at
 *   the first `fail` without raising the false-block rate above γ/2 per gate.
 *
 * The intervals (n the units behind the figure):
 * - ratios of sums over users (decisions.md) in general: R ± c(n)·SE, SE² the delta-method
 *   variance (delta-method.ts), n users; clamped to [0, 1].
 * - click_through_rate: R ± c(n)·SE as above, the delta method over users.
 * - click_through_rate, user_satisfaction, error_rate (proportions: clicks of impressions,
 *   positive answers of answers, errors of requests): the score (Wilson) form, which stays honest
 *   when every unit so far agrees (issue 30: the delta method's variance is then 0 and the
 *   interval [0, 0] or [1, 1]), over the effective units N' = N/D, D the design effect
 *   (proportions.ts: 1 for requests, which are independent; for impressions and answers the
 *   delta-method variance over the binomial one, in [1, Σy²/Σy], the worst case when p̂ is 0 or 1):
 *     {p : |p̂ − p| ≤ c·√(p(1 − p)/N')}, i.e. (p̂ + c²/2N' ± c·√(p̂(1 − p̂)/N' + c²/4N'²)) / (1 + c²/N'),
 *   with c = Φ⁻¹(1 − γ/2) (fixed) or c(n) (sequential: the normal-mixture boundary with the
 *   variance under each hypothesised p, n the variant's users, or its requests for the error
 *   rate). So 0 errors, or 5 positive answers of 5, still give a proper interval.
 * - response_time_p95 from the latency histogram (order statistics, N requests): the number B
 *   of latencies below the true quantile ξ_q is Binomial(N, q), so X_(l) ≤ ξ_q ≤ X_(u) with the
 *   ranks (1-based)
 *     fixed: u = 1 + the smallest k with P(B ≤ k) ≥ 1 − γ/2, l = the smallest k with P(B ≤ k) ≥ γ/2
 *            (exact binomial, as scipy.stats.binom.ppf);
 *     sequential: u = 1 + ⌊Nq + c(N)·√(Nq(1 − q))⌋, l = ⌈Nq − c(N)·√(Nq(1 − q))⌉ (the same mixture
 *            boundary on the count B, Howard & Ramdas' sequential quantile estimation);
 *   and, since a histogram only knows which bucket an order statistic fell in, the upper bound
 *   is the upper edge of X_(u)'s bucket and the lower bound the lower edge of X_(l)'s: never
 *   narrower than the exact interval. u > N, or X_(u) in the overflow bucket, is unbounded
 *   (null): the gate cannot pass.
 */
import { LATENCY_BUCKETS_MS } from '../stats/latency-histogram.js';
import { FIXED_HORIZON, sequentialMethod, sequentialTuning, type AnalysisMethod, type TestMethod } from '../stats/sequential.js';

/** A two-sided interval; a null end is unbounded on that side. */
export interface GateInterval {
  low: number | null;
  high: number | null;
}

/** How the intervals are computed: the experiment's method and confidence, and its minimum (the sequential tuning). */
export interface GateIntervalSettings {
  method: AnalysisMethod;
  confidenceLevel: number;
  minimumSampleSize: number;
}

/** The boundary of one interval setting: c(n) per unit standard error. */
export function intervalMultiplier(settings: GateIntervalSettings, n: number): number {
  const gamma = 1 - settings.confidenceLevel;
  const method: TestMethod =
    settings.method === 'sequential' ? sequentialMethod(sequentialTuning(gamma, Math.max(2, settings.minimumSampleSize))) : FIXED_HORIZON;
  return method.halfWidth(1, n, gamma);
}

const clampRate = (x: number): number => Math.min(1, Math.max(0, x));

/** R ± c(n)·SE for a ratio metric of n users, clamped to [0, 1]; null without a variance (n < 2). */
export function ratioInterval(
  value: number | null,
  variance: number | null,
  n: number,
  settings: GateIntervalSettings,
): GateInterval | null {
  if (value === null || variance === null || n < 2) return null;
  const half = intervalMultiplier(settings, n) * Math.sqrt(variance);
  return { low: clampRate(value - half), high: clampRate(value + half) };
}

/**
 * The score-form interval of a proportion: `successes` of `n` units with design effect D (1:
 * independent units), i.e. S/D of N/D effective units, {p : |p̂ − p| ≤ c·√(p(1 − p)·D/N)} with
 * c = c(m) the method's multiplier (intervalMultiplier) at m = `mixtureN` (the sequential
 * method's count: users for a per-user metric, requests for the error rate). Null for n = 0.
 */
export function proportionInterval(
  successes: number,
  n: number,
  settings: GateIntervalSettings,
  designEffect = 1,
  mixtureN = n,
): GateInterval | null {
  if (!(n > 0)) return null;
  return wilsonInterval(successes / designEffect, n / designEffect, intervalMultiplier(settings, mixtureN));
}

/** Wilson's score interval at multiplier z for `successes` of `n` (not necessarily whole). */
export function wilsonInterval(successes: number, n: number, c: number): GateInterval {
  const p = successes / n;
  const c2n = (c * c) / n;
  const center = (p + c2n / 2) / (1 + c2n);
  const half = (c / (1 + c2n)) * Math.sqrt((p * (1 - p)) / n + (c * c) / (4 * n * n));
  return { low: clampRate(center - half), high: clampRate(center + half) };
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9): enough for binomial probabilities to ~1e-13. */
function logGamma(x: number): number {
  const g = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const y = x - 1;
  let a = g[0] as number;
  const t = y + 7.5;
  for (let i = 1; i < 9; i++) a += (g[i] as number) / (y + i);
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(a);
}

function binomialLogPmf(k: number, n: number, p: number): number {
  return logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1) + k * Math.log(p) + (n - k) * Math.log1p(-p);
}

/**
 * P(Binomial(n, p) ≤ k), 0 < p < 1: the pmf summed from k towards the nearer tail until the
 * terms vanish (at most a few thousand terms even for millions of trials).
 */
export function binomialCdf(k: number, n: number, p: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  const mean = n * p;
  const sumFrom = (start: number, step: 1 | -1, end: number): number => {
    let total = 0;
    for (let j = start; step === 1 ? j <= end : j >= end; j += step) {
      const term = Math.exp(binomialLogPmf(j, n, p));
      total += term;
      if (term <= total * 1e-17) break; // the terms only shrink away from the mean (0 once they underflow)
    }
    return total;
  };
  return k < mean ? Math.min(1, sumFrom(k, -1, 0)) : Math.max(0, 1 - sumFrom(k + 1, 1, n));
}

/**
 * The smallest k with P(Binomial(n, p) ≤ k) ≥ prob (scipy.stats.binom.ppf), by bisection on the
 * cdf within 40 standard deviations of the mean (beyond them the cdf is 0 or 1 in doubles).
 */
export function binomialQuantile(prob: number, n: number, p: number): number {
  const spread = 40 * Math.sqrt(n * p * (1 - p)) + 1;
  let lo = Math.max(0, Math.floor(n * p - spread));
  let hi = Math.min(n, Math.ceil(n * p + spread));
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (binomialCdf(mid, n, p) >= prob) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The 1-based ranks (l, u) of the order statistics bracketing the q-quantile of N observations. */
export function quantileRanks(total: number, q: number, settings: GateIntervalSettings): { lower: number; upper: number } {
  const gamma = 1 - settings.confidenceLevel;
  if (settings.method === 'fixed') {
    return { lower: binomialQuantile(gamma / 2, total, q), upper: binomialQuantile(1 - gamma / 2, total, q) + 1 };
  }
  const spread = intervalMultiplier(settings, total) * Math.sqrt(total * q * (1 - q));
  return { lower: Math.ceil(total * q - spread), upper: Math.floor(total * q + spread) + 1 };
}

/** The bucket holding the rank-th smallest latency (1-based), or undefined when rank is past the total. */
function bucketOfRank(counts: ReadonlyMap<number, number>, rank: number): number | undefined {
  let cumulative = 0;
  for (let bucket = 0; bucket <= LATENCY_BUCKETS_MS.length; bucket++) {
    cumulative += counts.get(bucket) ?? 0;
    if (cumulative >= rank) return bucket;
  }
  return undefined;
}

/**
 * The order-statistic interval (ms) for quantile q of a latency histogram (counts per bucket
 * index, latency-histogram.ts): from the lower edge of X_(l)'s bucket to the upper edge of
 * X_(u)'s; null for an empty histogram.
 */
export function histogramQuantileInterval(
  counts: ReadonlyMap<number, number>,
  q: number,
  settings: GateIntervalSettings,
): GateInterval | null {
  let total = 0;
  for (const count of counts.values()) total += count;
  if (total === 0) return null;
  const { lower, upper } = quantileRanks(total, q, settings);
  const overflow: number = LATENCY_BUCKETS_MS.length;
  const low = lower < 1 ? 0 : (bucketOfRank(counts, lower) as number);
  const high = upper > total ? undefined : bucketOfRank(counts, upper);
  return {
    low: lower < 1 || low === 0 ? 0 : (LATENCY_BUCKETS_MS[low - 1] as number),
    high: high === undefined || high === overflow ? null : (LATENCY_BUCKETS_MS[high] as number),
  };
}
