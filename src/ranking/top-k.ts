/**
 * Top-k selection with a bounded binary heap: O(n log k) instead of sorting the whole
 * pool. Scores and timestamps are compared inline (this runs once per candidate on
 * every request); the id tie-break is a callback because exact ties are rare.
 */

/** Candidates by position: score (negative = not eligible), creation time, and a last tie-break. */
export interface TopKInput {
  readonly scores: Float64Array;
  readonly createdAt: Float64Array;
  /** Number of positions to consider (a prefix of the arrays). */
  readonly n: number;
  /** Negative when candidate `a` ranks before `b` (same score and time). */
  readonly tieBreak: (a: number, b: number) => number;
}

/** Ranks `a` before `b`: higher score, then newer, then `tieBreak`. */
function before(input: TopKInput, a: number, b: number): boolean {
  const sa = input.scores[a] ?? -1;
  const sb = input.scores[b] ?? -1;
  if (sa !== sb) return sa > sb;
  const ca = input.createdAt[a] ?? 0;
  const cb = input.createdAt[b] ?? 0;
  if (ca !== cb) return ca > cb;
  return input.tieBreak(a, b) < 0;
}

/** Positions of the (at most) `k` best eligible candidates, best first. */
export function selectTopK(input: TopKInput, k: number): number[] {
  if (k <= 0) return [];
  const { scores, n } = input;
  // The root holds the worst kept candidate, so a better newcomer replaces it.
  const heap = new Int32Array(k);
  let size = 0;
  for (let i = 0; i < n; i++) {
    const s = scores[i] ?? -1;
    if (s < 0) continue;
    if (size < k) {
      heap[size] = i;
      siftUp(input, heap, size++);
      continue;
    }
    const rootScore = scores[heap[0] ?? 0] ?? -1;
    if (s < rootScore || (s === rootScore && !before(input, i, heap[0] ?? 0))) continue;
    heap[0] = i;
    siftDown(input, heap, size);
  }
  return Array.from(heap.subarray(0, size)).sort((a, b) => (before(input, a, b) ? -1 : before(input, b, a) ? 1 : 0));
}

function siftUp(input: TopKInput, heap: Int32Array, pos: number): void {
  while (pos > 0) {
    const parent = (pos - 1) >> 1;
    const p = heap[parent] ?? 0;
    const c = heap[pos] ?? 0;
    if (!before(input, p, c)) return;
    heap[parent] = c;
    heap[pos] = p;
    pos = parent;
  }
}

function siftDown(input: TopKInput, heap: Int32Array, size: number): void {
  let pos = 0;
  for (;;) {
    const left = 2 * pos + 1;
    const right = left + 1;
    let worst = pos;
    if (left < size && before(input, heap[worst] ?? 0, heap[left] ?? 0)) worst = left;
    if (right < size && before(input, heap[worst] ?? 0, heap[right] ?? 0)) worst = right;
    if (worst === pos) return;
    const t = heap[worst] ?? 0;
    heap[worst] = heap[pos] ?? 0;
    heap[pos] = t;
    pos = worst;
  }
}
