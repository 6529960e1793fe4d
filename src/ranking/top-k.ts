/**
 * Top-k selection in linear time: a histogram of the eligible scores finds the score
 * bucket holding the k-th best, only candidates from that bucket up are collected, and
 * only those (about k) are sorted. Per candidate that is a few typed-array reads and
 * compares, instead of a heap's sift through log k comparisons for every newcomer that
 * beats the root (this runs once per candidate on every request); the full comparison
 * (score, then time, then the `tieBreak` callback) only runs inside the final sort.
 */

/** Candidates by position: score (negative = not eligible), creation time, and a last tie-break. */
export interface TopKInput {
  readonly scores: Float64Array;
  readonly createdAt: Float64Array;
  /** Number of positions to consider (a prefix of the arrays). */
  readonly n: number;
  /** Negative when candidate `a` ranks before `b` (same score and time). */
  readonly tieBreak: (a: number, b: number) => number;
  /**
   * What the scoring pass already knows, when every eligible score is in [0, 1]: the
   * eligible positions (the first `count` of `positions`) and their histogram by
   * `scoreBucket`. Without it the selection finds both itself.
   */
  readonly eligible?: { readonly positions: Int32Array; readonly count: number; readonly histogram: Int32Array };
}

/** Buckets of the score histogram: about 2.4 candidates each for a pool of 2,400. */
export const SCORE_BUCKETS = 1024;

/** The histogram bucket of a score in [0, 1] (`TopKInput.eligible`). */
export function scoreBucket(score: number): number {
  return bucketOf(score, 0, SCORE_BUCKETS);
}

const ownHistogram = new Int32Array(SCORE_BUCKETS);

/** Positions of the (at most) `k` best eligible candidates, best first. */
export function selectTopK(input: TopKInput, k: number): number[] {
  if (k <= 0) return [];
  if (input.eligible !== undefined) return topOfEligible(input, input.eligible, k);
  const { scores, createdAt, tieBreak } = input;
  const kept = keptOf(input, k);
  kept.sort((a, b) => compare(scores, createdAt, tieBreak, a, b));
  if (kept.length > k) kept.length = k;
  return kept;
}

/** Negative when candidate a ranks before b: higher score, then newer, then `tieBreak`. */
function compare(scores: Float64Array, createdAt: Float64Array, tieBreak: (a: number, b: number) => number, a: number, b: number): number {
  const sa = scores[a]!;
  const sb = scores[b]!;
  if (sa !== sb) return sa > sb ? -1 : 1;
  const ca = createdAt[a]!;
  const cb = createdAt[b]!;
  if (ca !== cb) return ca > cb ? -1 : 1;
  return tieBreak(a, b);
}

/** Next free place of each bucket while distributing (reused: one selection at a time). */
const bucketNext = new Int32Array(SCORE_BUCKETS);

/**
 * The top k from the scoring pass's histogram, without a comparison sort: the candidates
 * from the cut bucket up are distributed by bucket, best bucket first (a counting sort),
 * and only each bucket's few candidates are sorted among themselves.
 */
function topOfEligible(input: TopKInput, eligible: NonNullable<TopKInput['eligible']>, k: number): number[] {
  const { scores, createdAt, tieBreak } = input;
  const { positions, count, histogram } = eligible;
  const cut = count > k ? cutOf(histogram, k) : 0;
  let total = 0;
  for (let b = SCORE_BUCKETS - 1; b >= cut; b--) {
    bucketNext[b] = total;
    total += histogram[b]!;
  }
  const order = new Array<number>(total);
  for (let e = 0; e < count; e++) {
    const i = positions[e]!;
    const b = scoreBucket(scores[i]!);
    if (b >= cut) order[bucketNext[b]!++] = i;
  }
  // Each bucket now ends where the next (lower) one starts: sort within it (insertion sort
  // for the usual few, a merge sort when many posts score alike).
  let start = 0;
  for (let b = SCORE_BUCKETS - 1; b >= cut && start < k; b--) {
    const end = bucketNext[b]!;
    if (end - start > 16) {
      const part = order.slice(start, end).sort((x, y) => compare(scores, createdAt, tieBreak, x, y));
      for (let x = 0; x < part.length; x++) order[start + x] = part[x]!;
      start = end;
      continue;
    }
    for (let x = start + 1; x < end; x++) {
      const i = order[x]!;
      let y = x - 1;
      while (y >= start && compare(scores, createdAt, tieBreak, i, order[y]!) < 0) {
        order[y + 1] = order[y]!;
        y -= 1;
      }
      order[y + 1] = i;
    }
    start = end;
  }
  if (order.length > k) order.length = k;
  return order;
}

/** The eligible positions whose bucket is at or above the cut, with a histogram over the scores' own range. */
function keptOf(input: TopKInput, k: number): number[] {
  const { scores, n } = input;
  // Eligible count and score range (NaN is not eligible: it ranks nowhere).
  let count = 0;
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < n; i++) {
    const s = scores[i]!;
    if (!(s >= 0)) continue;
    count += 1;
    if (s < lo) lo = s;
    if (s > hi) hi = s;
  }
  const scale = SCORE_BUCKETS / (hi - lo);
  let cut = 0;
  if (count > k && Number.isFinite(scale)) {
    ownHistogram.fill(0);
    for (let i = 0; i < n; i++) {
      const s = scores[i]!;
      if (s >= 0) ownHistogram[bucketOf(s, lo, scale)]! += 1;
    }
    cut = cutOf(ownHistogram, k);
  }
  const kept: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = scores[i]!;
    if (s >= 0 && (cut === 0 || bucketOf(s, lo, scale) >= cut)) kept.push(i);
  }
  return kept;
}

/**
 * A score such that at least k of the scores counted in a `scoreBucket` histogram are at
 * or above it (0 when the histogram holds fewer), as high as the buckets tell.
 */
export function scoreAtLeast(histogram: Int32Array, k: number): number {
  // scoreBucket(s) >= cut exactly when s >= cut / SCORE_BUCKETS: scaling by a power of two is exact.
  return cutOf(histogram, k) / SCORE_BUCKETS;
}

/**
 * The highest bucket such that it and the buckets above hold at least k candidates (0 when
 * none does). The bucket is monotone in the score, so every candidate below the cut scores
 * less than at least k candidates: none of them is in the top k.
 */
function cutOf(histogram: Int32Array, k: number): number {
  let above = 0;
  let cut = SCORE_BUCKETS - 1;
  for (; cut > 0; cut--) {
    above += histogram[cut]!;
    if (above >= k) break;
  }
  return cut;
}

/** The bucket of a score in [lo, lo + SCORE_BUCKETS / scale]; one expression for every pass, so passes agree. */
function bucketOf(s: number, lo: number, scale: number): number {
  // Non-negative and below 2^31, so truncation is the floor.
  const b = ((s - lo) * scale) | 0;
  return b < SCORE_BUCKETS ? b : SCORE_BUCKETS - 1;
}
