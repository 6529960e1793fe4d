/**
 * Variances of proportion metrics that stay honest when answers are few and agree (issue 30).
 *
 * The delta method over users (delta-method.ts) estimates Var(R) from the spread of the users'
 * own ratios; when every answer so far agrees (8 of 8 positive) that spread is 0 and so is the
 * variance, and the variant is then "measured" exactly: a Wald interval R ± c·SE collapses to
 * [1, 1] or [0, 0]. A single variant's proportion (the gates: CTR, satisfaction, error rate) is
 * therefore judged by a score interval (gate-intervals.ts), whose variance p(1 − p)·D/N is taken
 * under each hypothesised p, over N/D effective units with D the design effect: the
 * delta-method variance over the binomial one p̂(1 − p̂)/N, at least 1 (users whose units agree
 * among themselves only widen it), at most Σy²/Σy (each user's units all alike, the worst case),
 * and that worst case when p̂ is 0 or 1 (the spread says nothing there).
 */
import type { RatioEstimate } from './delta-method.js';

/**
 * The design effect D of one variant's proportion: Var_δ·N / (p̂(1 − p̂)) within [1, Σy²/Σy];
 * Σy²/Σy when p̂ is 0 or 1 or the delta method has no variance. `sumY2` is Σy² over users.
 */
export function designEffect(estimate: RatioEstimate, sumY2: number): number {
  const units = estimate.sumY ?? 0;
  const worst = units > 0 ? Math.max(1, sumY2 / units) : 1;
  const p = estimate.value;
  if (p === null || estimate.variance === null || p <= 0 || p >= 1) return worst;
  return Math.min(worst, Math.max(1, (estimate.variance * units) / (p * (1 - p))));
}
