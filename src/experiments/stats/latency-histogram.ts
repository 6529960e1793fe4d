/**
 * A fixed-bucket latency histogram (milliseconds) and its interpolated quantile, as
 * Prometheus' histogram_quantile computes it. The 200 ms gate is a bucket bound, so a
 * p95 above or below it is never blurred across it.
 */

/** Upper bounds (ms) of the buckets; the last bucket is everything above the last bound. */
export const LATENCY_BUCKETS_MS = [
  1, 2, 3, 5, 7.5, 10, 15, 20, 25, 30, 40, 50, 60, 75, 100, 125, 150, 175, 200, 250, 300, 400, 500, 750, 1000, 1500, 2000, 3000, 5000,
  10000,
] as const;

/** Index of the bucket holding `ms`: the first bound ≥ ms, or LATENCY_BUCKETS_MS.length for the overflow bucket. */
export function latencyBucketOf(ms: number): number {
  let lo = 0;
  let hi: number = LATENCY_BUCKETS_MS.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((LATENCY_BUCKETS_MS[mid] as number) >= ms) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * Quantile q of a histogram given as counts per bucket index: rank = q·N; in the first
 * bucket whose cumulative count reaches rank, interpolate linearly between its lower
 * bound (the previous bound, 0 for the first) and its upper bound:
 * lower + (upper − lower)·(rank − before)/count. The overflow bucket reports the last
 * bound. Null for an empty histogram.
 */
export function histogramQuantile(counts: ReadonlyMap<number, number>, q: number): number | null {
  let total = 0;
  for (const count of counts.values()) total += count;
  if (total === 0) return null;
  const rank = q * total;
  let cumulative = 0;
  for (let bucket = 0; bucket <= LATENCY_BUCKETS_MS.length; bucket++) {
    const count = counts.get(bucket) ?? 0;
    if (count === 0) continue;
    if (cumulative + count >= rank) {
      const last: number = LATENCY_BUCKETS_MS.length;
      if (bucket === last) return LATENCY_BUCKETS_MS[last - 1] as number;
      const lower = bucket === 0 ? 0 : (LATENCY_BUCKETS_MS[bucket - 1] as number);
      const upper = LATENCY_BUCKETS_MS[bucket] as number;
      return lower + ((upper - lower) * (rank - cumulative)) / count;
    }
    cumulative += count;
  }
  return LATENCY_BUCKETS_MS.at(-1) as number;
}
