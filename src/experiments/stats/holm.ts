/**
 * Holm–Bonferroni step-down adjustment of a family of p-values, and the per-comparison
 * levels of the intervals that agree with its decisions.
 */

interface Ranked {
  p: number;
  index: number;
}

/** The defined p-values in Holm's order: ascending, ties by input position. */
function holmOrder(pValues: readonly (number | null)[]): Ranked[] {
  return pValues
    .map((p, index) => ({ p, index }))
    .filter((entry): entry is Ranked => entry.p !== null)
    .sort((a, b) => a.p - b.p || a.index - b.index);
}

/**
 * Holm adjusted p-values: with the m defined p-values sorted ascending p₍₁₎ ≤ … ≤ p₍ₘ₎,
 * p̃₍ᵢ₎ = min(1, max_{j ≤ i} (m − j + 1)·p₍ⱼ₎); returned in input order. Null entries
 * (comparisons without a test) are not part of the family and stay null.
 */
export function holmAdjust(pValues: readonly (number | null)[]): (number | null)[] {
  const order = holmOrder(pValues);
  const m = order.length;
  const adjusted: (number | null)[] = pValues.map(() => null);
  let running = 0;
  order.forEach(({ p, index }, i) => {
    running = Math.max(running, Math.min(1, (m - i) * p));
    adjusted[index] = running;
  });
  return adjusted;
}

/**
 * The two-sided level γᵢ of each comparison's Holm-consistent interval: γ = α/(m − j + 1)
 * for the comparison Holm rejects at step j (p̃ < α), γ = α/m (Bonferroni) for one it does
 * not reject, null without a p-value. Why they agree with the decisions: a rejection at
 * step j means (m − j + 1)·p₍ⱼ₎ ≤ p̃₍ⱼ₎ < α, so p₍ⱼ₎ < γ and the level-γ interval excludes 0;
 * with j* the first step not rejected, p₍ⱼ*₎ ≥ α/(m − j* + 1) ≥ α/m, and every later p is at
 * least that, so each non-rejected p ≥ α/m and its Bonferroni interval contains 0.
 * With one comparison γ = α: the adjusted interval is the unadjusted one.
 */
export function holmIntervalAlphas(pValues: readonly (number | null)[], alpha: number): (number | null)[] {
  const adjusted = holmAdjust(pValues);
  const order = holmOrder(pValues);
  const m = order.length;
  const alphas: (number | null)[] = pValues.map(() => null);
  order.forEach(({ index }, i) => {
    alphas[index] = (adjusted[index] as number) < alpha ? alpha / (m - i) : alpha / m;
  });
  return alphas;
}
