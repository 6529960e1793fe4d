/**
 * Sequential, always-valid inference for the preference share of an interleaving experiment:
 * the A/B tests' mixture SPRT (sequential.ts, Johari et al. 2017), with the same tuning
 * parameter ρ, applied to the share of users with a preference who preferred the ranker
 * under test.
 *
 * Each user with a preference is a Bernoulli trial with mean θ (the share); the estimate
 * p̂ = k/n has variance V(θ) = θ(1 − θ)/n. With the mixing variance τ² = ρ²·θ(1 − θ) (so that,
 * as in sequential.ts, r = τ²/V = n·ρ²), the mixture likelihood ratio of θ₀ is
 *
 *   Λ(θ₀) = (1 + r)^(−1/2) · exp( r/(1 + r) · (p̂ − θ₀)² / (2·V(θ₀)) ).
 *
 * - Always-valid p-value of "no preference": p = min(1, 1/Λ(½)), V(½) = 1/(4n). At θ = ½ a
 *   user's preference, centred, is ¼-sub-Gaussian (Hoeffding's lemma, tight for a fair coin),
 *   so the normal mixture is a nonnegative supermartingale over settled preferences and
 *   P(p ever < α) ≤ α holds exactly, not only asymptotically.
 * - Confidence sequence at level 1 − γ: {θ₀ : Λ(θ₀) < 1/γ} = {θ₀ : (p̂ − θ₀)² < c·θ₀(1 − θ₀)/n}
 *   with c = (1 + 1/r)·(ln(1 + r) − 2·ln γ): the Wilson score interval with z² replaced by c
 *   (√c = confidenceSequenceHalfWidth(1, n, ρ², γ)). Since the p-value and the sequence invert
 *   the same Λ, p < γ exactly when the sequence excludes ½.
 *
 * Tuning: ρ² = (−2·ln α + ln(1 − 2·ln α)) / n* (sequentialTuning), narrowest at n* users with a
 * preference. minimum_sample_size counts users with a preference here, so n* = the minimum
 * (the first read at which a verdict is possible; for A/B, n counts both variants: 2 × minimum).
 */
import { alwaysValidPValue, confidenceSequenceHalfWidth, sequentialTuning, type SequentialTuning } from '../stats/sequential.js';

/** n* of an interleaving experiment: its minimum of users with a preference (at least 2, so ρ is finite). */
export function interleavingTargetSampleSize(minimumSampleSize: number): number {
  return Math.max(2, minimumSampleSize);
}

/** The sequential tuning of an interleaving experiment at level α (sequentialTuning with n* above). */
export function interleavingTuning(alpha: number, minimumSampleSize: number): SequentialTuning {
  return sequentialTuning(alpha, interleavingTargetSampleSize(minimumSampleSize));
}

/**
 * Wilson score interval of k/n with critical value z:
 * (p̂ + z²/2n ± z·√(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n), clipped to [0, 1]. Null when n = 0.
 */
export function wilsonScoreInterval(k: number, n: number, z: number): [number, number] | null {
  if (n === 0) return null;
  const p = k / n;
  const z2n = (z * z) / n;
  const center = (p + z2n / 2) / (1 + z2n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2n / (4 * n))) / (1 + z2n);
  return [Math.max(0, center - half), Math.min(1, center + half)];
}

/** Always-valid p-value of share = ½ after k of n preferences: min(1, 1/Λ(½)), SE = 1/(2√n). Null when n = 0. */
export function sequentialSharePValue(k: number, n: number, rhoSquared: number): number | null {
  if (n === 0) return null;
  return alwaysValidPValue(k / n - 0.5, 0.5 / Math.sqrt(n), n, rhoSquared);
}

/** Confidence sequence of the share at `confidenceLevel`: Wilson with z = √((1 + 1/r)(ln(1 + r) − 2 ln γ)). Null when n = 0. */
export function shareConfidenceSequence(k: number, n: number, rhoSquared: number, confidenceLevel: number): [number, number] | null {
  if (n === 0) return null;
  return wilsonScoreInterval(k, n, confidenceSequenceHalfWidth(1, n, rhoSquared, 1 - confidenceLevel));
}
