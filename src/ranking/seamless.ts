/**
 * Where recommendations go in a timeline the client already shows (the seamless
 * endpoint and the blended timelines).
 */

/** The share of a page given to recommendations for ordinary users (decisions.md). */
export const DEFAULT_INJECTION_RATIO = 0.3;

/**
 * Insertion points for recommendations in a timeline of `timelineLength` statuses.
 *
 * Point `i` means "insert before the existing status at index `i` of the original
 * timeline" (`i === timelineLength` appends). Points are strictly increasing and
 * distinct, so at least one existing status separates two recommendations; none is at
 * 0 (the user first sees their own timeline), and they are spread evenly:
 * point k = round((k + 1) · L / (n + 1)) for n < L, else 1..L.
 *
 * The count n = round(ratio · L), capped by `available` recommendations, by
 * `maxRecommendations` and by the L slots that keep them apart.
 */
export function planSeamlessInsertions(
  timelineLength: number,
  available: number,
  maxRecommendations: number,
  ratio = DEFAULT_INJECTION_RATIO,
): number[] {
  const length = Math.max(0, Math.floor(timelineLength));
  const safeRatio = Number.isFinite(ratio) ? Math.min(1, Math.max(0, ratio)) : DEFAULT_INJECTION_RATIO;
  const count = Math.max(0, Math.min(Math.round(safeRatio * length), Math.floor(available), Math.floor(maxRecommendations), length));
  if (count === length) return Array.from({ length: count }, (_, k) => k + 1);
  return Array.from({ length: count }, (_, k) => Math.round(((k + 1) * length) / (count + 1)));
}
