/**
 * Holm–Bonferroni step-down adjustment of a family of p-values.
 */

/**
 * Holm adjusted p-values: with the m defined p-values sorted ascending p₍₁₎ ≤ … ≤ p₍ₘ₎,
 * p̃₍ᵢ₎ = min(1, max_{j ≤ i} (m − j + 1)·p₍ⱼ₎); returned in input order. Null entries
 * (comparisons without a test) are not part of the family and stay null.
 */
export function holmAdjust(pValues: readonly (number | null)[]): (number | null)[] {
  const order = pValues
    .map((p, index) => ({ p, index }))
    .filter((entry): entry is { p: number; index: number } => entry.p !== null)
    .sort((a, b) => a.p - b.p || a.index - b.index);
  const m = order.length;
  const adjusted: (number | null)[] = pValues.map(() => null);
  let running = 0;
  order.forEach(({ p, index }, i) => {
    running = Math.max(running, Math.min(1, (m - i) * p));
    adjusted[index] = running;
  });
  return adjusted;
}
