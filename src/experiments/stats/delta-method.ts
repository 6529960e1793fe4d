/**
 * A variant's ratio metric R = Σx / Σy over users and its variance by the delta method,
 * treating users as i.i.d. pairs (x, y): the ratio of means x̄/ȳ linearised around (x̄, ȳ).
 */
import type { RatioMoments } from './variant-accumulator.js';

/** A ratio metric and its estimated sampling variance; null where undefined. */
export interface RatioEstimate {
  n: number;
  value: number | null;
  variance: number | null;
  /** Σx and Σy: what the score-type (binomial) variances of proportion metrics need. */
  sumX?: number;
  sumY?: number;
}

/** R = Σx/Σy (null when Σy = 0). */
export function ratioValue(m: RatioMoments): number | null {
  return m.sumY > 0 ? m.sumX / m.sumY : null;
}

/**
 * Var(R) ≈ (1/n)·(s_x²/ȳ² − 2·x̄·s_xy/ȳ³ + x̄²·s_y²/ȳ⁴), with n−1 sample variances s_x², s_y²
 * and covariance s_xy; null when n < 2 or ȳ = 0. Clamped at 0 against rounding when the
 * true variance is 0 (every user with the same ratio).
 */
export function ratioVariance(m: RatioMoments): number | null {
  if (m.n < 2 || !(m.sumY > 0)) return null;
  const xBar = m.sumX / m.n;
  const yBar = m.sumY / m.n;
  const sxx = m.m2x / (m.n - 1);
  const syy = m.m2y / (m.n - 1);
  const sxy = m.cxy / (m.n - 1);
  const variance = (sxx / yBar ** 2 - (2 * xBar * sxy) / yBar ** 3 + (xBar ** 2 * syy) / yBar ** 4) / m.n;
  return Math.max(0, variance);
}

/** The ratio and its delta-method variance for one metric of one variant. */
export function ratioEstimate(m: RatioMoments): RatioEstimate {
  return { n: m.n, value: ratioValue(m), variance: ratioVariance(m), sumX: m.sumX, sumY: m.sumY };
}
