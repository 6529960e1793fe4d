/**
 * Sequential, always-valid inference for a treatment − control difference: the mixture
 * sequential probability ratio test (mSPRT) of Johari, Koomen, Pekelis & Walsh, "Peeking at
 * A/B tests" (KDD 2017), applied to the delta-method estimate as in the asymptotic confidence
 * sequences of Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas, "Time-uniform central limit
 * theory and asymptotic confidence sequences" (2021).
 *
 * The model: at every read the estimated difference d is approximately N(θ, V), V = SE² the
 * delta-method variance, and V shrinks like σ²/n with n the users in the two variants
 * compared. Mixing the likelihood ratio of θ against θ₀ over θ ~ N(θ₀, τ²) gives
 *
 *   Λ(θ₀) = √(V / (V + τ²)) · exp( τ²·(d − θ₀)² / (2·V·(V + τ²)) ),
 *
 * a (asymptotic) nonnegative martingale under θ = θ₀, so by Ville's inequality
 * P(Λ ever ≥ 1/α) ≤ α: the experiment may be read at any time, as often as one likes, and
 * stopped at the first significant read without raising the false-positive rate above α.
 * - always-valid p-value: p = min(1, 1/Λ(0));
 * - confidence sequence at level 1 − γ: {θ₀ : Λ(θ₀) < 1/γ} = d ± h(γ) with
 *   h(γ)² = V·(1 + 1/r)·(ln(1 + r) − 2·ln γ), r = τ²/V;
 * so p < γ exactly when d ± h(γ) excludes 0, which is what keeps Holm's decisions and the
 * adjusted intervals in agreement (analysis.ts) as in the fixed-horizon path.
 * Each read uses only the current totals (the service keeps no history of reads), so a
 * reported p-value can rise again later; the guarantee is about the first time it falls
 * below α, which is the decision rule. Taking the running minimum across reads (and the
 * running intersection of intervals) would be valid too, but needs stored reads.
 *
 * Tuning parameter. τ is set scale-free through ρ: τ² = ρ²·σ̂², σ̂² = V·n the per-user
 * variance of the comparison (so r = n·ρ²), with ρ chosen so the confidence sequence is
 * narrowest when the two variants together hold n* users (Waudby-Smith et al., closed form):
 *   ρ² = (−2·ln α + ln(1 − 2·ln α)) / n*.
 * Default n* = 2 × the experiment's `minimum_sample_size`: the first read at which a result can
 * be called significant at all (decisions.md: never below the minimum) is the read where the
 * sequence is tightest. Trade-off: a smaller n* makes early reads sharper and later ones wider
 * (the width grows only like √(ln n / n) beyond n*); a larger n* gives up early detection for
 * narrower intervals late. At n* the half-width is ≈ 1.55× (α = 0.05) the fixed-horizon one —
 * the price of reading at any time; a planned single final read is the fixed method's case.
 */
import { normalQuantile, twoSidedPValue } from './distributions.js';

/** How an analysis is read: fixed-horizon (one planned look) or sequential (any time). */
export const ANALYSIS_METHODS = ['fixed', 'sequential'] as const;
export type AnalysisMethod = (typeof ANALYSIS_METHODS)[number];

/** New experiments: sequential, the method whose guarantees hold when it is read while running. */
export const DEFAULT_ANALYSIS_METHOD: AnalysisMethod = 'sequential';

/**
 * Data whose method is not recorded (a CSV, an export or experiment from before the choice
 * existed) is read as it always was: fixed-horizon.
 */
export const UNRECORDED_ANALYSIS_METHOD: AnalysisMethod = 'fixed';

export function isAnalysisMethod(value: unknown): value is AnalysisMethod {
  return typeof value === 'string' && (ANALYSIS_METHODS as readonly string[]).includes(value);
}

/** The mixing parameter of the sequential method and what it was derived from. */
export interface SequentialTuning {
  /** Users in the two variants compared at which the confidence sequence is narrowest (n*). */
  target_sample_size: number;
  /** ρ² = (−2·ln α + ln(1 − 2·ln α)) / n*; the mixing variance is τ² = ρ²·V·n. */
  rho_squared: number;
}

/** ρ² for level α, narrowest at n* users (Waudby-Smith et al. 2021). */
export function sequentialTuning(alpha: number, targetSampleSize: number): SequentialTuning {
  const twoLog = -2 * Math.log(alpha);
  return { target_sample_size: targetSampleSize, rho_squared: (twoLog + Math.log(1 + twoLog)) / targetSampleSize };
}

/** n* by default: both variants at the minimum sample size (at least 2 users, so ρ is finite). */
export function defaultTargetSampleSize(minimumSampleSize: number): number {
  return Math.max(2, 2 * minimumSampleSize);
}

/**
 * How one read turns a difference, its SE and the users behind it into a p-value and the
 * half-width of an interval at a two-sided level γ (p < γ exactly when |d| exceeds it).
 */
export interface TestMethod {
  pValue(difference: number, se: number, n: number): number;
  halfWidth(se: number, n: number, gamma: number): number;
}

/** Fixed horizon: z-test and Wald interval d ± Φ⁻¹(1 − γ/2)·SE. */
export const FIXED_HORIZON: TestMethod = {
  pValue: (difference, se) => twoSidedPValue(difference / se),
  halfWidth: (se, _n, gamma) => normalQuantile(1 - gamma / 2) * se,
};

/** ln Λ(0) = ½·ln(1/(1 + r)) + d²·r / (2·V·(1 + r)), r = n·ρ². */
function logMixtureRatio(difference: number, se: number, n: number, rhoSquared: number): number {
  const r = n * rhoSquared;
  return -0.5 * Math.log1p(r) + ((difference / se) ** 2 * r) / (2 * (1 + r));
}

/** The always-valid p-value min(1, 1/Λ(0)) of one read. */
export function alwaysValidPValue(difference: number, se: number, n: number, rhoSquared: number): number {
  return Math.exp(-Math.max(0, logMixtureRatio(difference, se, n, rhoSquared)));
}

/** h(γ) = SE·√((1 + 1/r)·(ln(1 + r) − 2·ln γ)): the confidence sequence is d ± h(γ). */
export function confidenceSequenceHalfWidth(se: number, n: number, rhoSquared: number, gamma: number): number {
  const r = n * rhoSquared;
  return se * Math.sqrt((1 + 1 / r) * (Math.log1p(r) - 2 * Math.log(gamma)));
}

/** The mSPRT with a given tuning as a TestMethod. */
export function sequentialMethod(tuning: SequentialTuning): TestMethod {
  return {
    pValue: (difference, se, n) => alwaysValidPValue(difference, se, n, tuning.rho_squared),
    halfWidth: (se, n, gamma) => confidenceSequenceHalfWidth(se, n, tuning.rho_squared, gamma),
  };
}
