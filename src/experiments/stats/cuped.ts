/**
 * CUPED (Deng, Xu, Kohavi & Walker 2013, "Improving the sensitivity of online controlled
 * experiments by utilizing pre-experiment data") for the ratio metrics R = Σx/Σy, through the
 * delta method as in Deng, Knoblich & Lu 2018 ("Applying the delta method in metric analytics",
 * section on CUPED for ratio metrics). Each user i of variant v has (x_i, y_i) in the experiment
 * and a pre-experiment covariate c_i (`pre_engagement`, user-counts.service.ts).
 *
 * 1. Linearise the ratio per user: L_i = (x_i − R_v·y_i) / ȳ_v, so that R_v − E[R_v] ≈ mean(L)
 *    and Var(R_v) ≈ s²_L / n_v (the delta-method variance of delta-method.ts, exactly).
 * 2. θ = Σ_v Σ_i (L_i − L̄_v)(c_i − c̄_v) / Σ_v Σ_i (c_i − c̄_v)²: the slope of the OLS regression
 *    of L on c with one intercept per variant (pooled within-variant), over all variants.
 * 3. Per variant, the adjusted ratio R_v − θ·(c̄_v − c̄) has variance
 *    Var_adj,v = (s²_L − 2θ·s_Lc + θ²·s²_c) / n_v (n−1 sample moments; θ treated as known).
 * 4. Treatment vs control: d_adj = (R_t − R_c) − θ·(c̄_t − c̄_c), SE_adj = √(Var_adj,t + Var_adj,c),
 *    p and interval from the comparison's method (fixed z-test or sequential, as unadjusted);
 *    variance_reduction = 1 − SE_adj² / SE² (≈ ρ²(L, c) in large samples).
 * Randomisation makes E[c̄_t − c̄_c] = 0, so d_adj estimates the same difference as d.
 */
import type { TestMethod } from './sequential.js';
import type { CovariateMoments, RatioMoments } from './variant-accumulator.js';

/** The covariate CUPED adjusts with: the user's pre-experiment engagement. */
export const CUPED_COVARIATE = 'pre_engagement';

/** One variant's metric moments with its covariate moments. */
export interface CupedVariant {
  ratio: RatioMoments;
  covariate: CovariateMoments;
}

/** The CUPED-adjusted comparison of one treatment vs the control on one metric. */
export interface CupedComparison {
  covariate: string;
  theta: number;
  difference: number | null;
  standard_error: number | null;
  ci_low: number | null;
  ci_high: number | null;
  p_value: number | null;
  /** 1 − SE_adj²/SE²: the share of the difference's variance removed by the adjustment. */
  variance_reduction: number | null;
}

/** Σ_i (L_i − L̄)(c_i − c̄) of one variant, with L_i = (x_i − R·y_i)/ȳ; null when Σy = 0. */
function linearisedCovariance(v: CupedVariant): number | null {
  if (!(v.ratio.sumY > 0)) return null;
  const r = v.ratio.sumX / v.ratio.sumY;
  return (v.covariate.cxc - r * v.covariate.cyc) / v.ratio.meanY;
}

/** θ pooled within variants over all of them (step 2); null when undefined (no ratio, or c constant within every variant). */
export function cupedTheta(variants: readonly CupedVariant[]): number | null {
  let numerator = 0;
  let denominator = 0;
  for (const v of variants) {
    const covariance = linearisedCovariance(v);
    if (covariance === null) return null;
    numerator += covariance;
    denominator += v.covariate.m2c;
  }
  return denominator > 0 ? numerator / denominator : null;
}

/** R_v and Var_adj,v (step 3); the variance is null when n < 2 or Σy = 0. */
function adjustedVariant(v: CupedVariant, theta: number): { value: number | null; variance: number | null } {
  const { ratio, covariate } = v;
  if (!(ratio.sumY > 0)) return { value: null, variance: null };
  const r = ratio.sumX / ratio.sumY;
  if (ratio.n < 2) return { value: r, variance: null };
  const ll = (ratio.m2x - 2 * r * ratio.cxy + r * r * ratio.m2y) / ratio.meanY ** 2;
  const lc = (covariate.cxc - r * covariate.cyc) / ratio.meanY;
  const sum = ll - 2 * theta * lc + theta * theta * covariate.m2c;
  return { value: r, variance: Math.max(0, sum / (ratio.n - 1) / ratio.n) };
}

/**
 * Step 4 for one treatment vs the control, with θ from cupedTheta and the unadjusted SE (for
 * the variance reduction). Bounds, p and reduction are null where the test is undefined.
 */
export function cupedComparison(
  treatment: CupedVariant,
  control: CupedVariant,
  theta: number,
  unadjustedSe: number | null,
  confidenceLevel: number,
  method: TestMethod,
): CupedComparison {
  const t = adjustedVariant(treatment, theta);
  const c = adjustedVariant(control, theta);
  const difference =
    t.value !== null && c.value !== null ? t.value - c.value - theta * (treatment.covariate.meanC - control.covariate.meanC) : null;
  const se = t.variance !== null && c.variance !== null ? Math.sqrt(t.variance + c.variance) : null;
  const reduction = se !== null && unadjustedSe !== null && unadjustedSe > 0 ? 1 - se ** 2 / unadjustedSe ** 2 : null;
  const base = { covariate: CUPED_COVARIATE, theta, difference, standard_error: se, variance_reduction: reduction };
  if (difference === null || se === null || !(se > 0)) return { ...base, ci_low: null, ci_high: null, p_value: null };
  const n = treatment.ratio.n + control.ratio.n;
  const half = method.halfWidth(se, n, 1 - confidenceLevel);
  return { ...base, ci_low: difference - half, ci_high: difference + half, p_value: method.pValue(difference, se, n) };
}
