import { describe, expect, it } from 'vitest';
import { LATENCY_BUCKETS_MS, histogramQuantile, latencyBucketOf } from '../../../../src/experiments/stats/latency-histogram.js';

describe('latency histogram', () => {
  it('puts a latency in the first bucket whose bound is at least it', () => {
    expect(latencyBucketOf(0)).toBe(0);
    expect(latencyBucketOf(1)).toBe(0);
    expect(latencyBucketOf(1.01)).toBe(1);
    expect(LATENCY_BUCKETS_MS[latencyBucketOf(200)]).toBe(200);
    expect(LATENCY_BUCKETS_MS[latencyBucketOf(200.5)]).toBe(250);
    expect(latencyBucketOf(1e9)).toBe(LATENCY_BUCKETS_MS.length);
  });

  it('interpolates the quantile inside its bucket as histogram_quantile does', () => {
    const counts = new Map<number, number>();
    for (let i = 0; i < 90; i++) counts.set(latencyBucketOf(8), (counts.get(latencyBucketOf(8)) ?? 0) + 1); // (7.5, 10]
    for (let i = 0; i < 10; i++) counts.set(latencyBucketOf(180), (counts.get(latencyBucketOf(180)) ?? 0) + 1); // (175, 200]
    // rank 95: 5 of the 10 in (175, 200] -> 175 + 25 * 5/10
    expect(histogramQuantile(counts, 0.95)).toBe(187.5);
    expect(histogramQuantile(counts, 0.5)).toBeCloseTo(7.5 + 2.5 * (50 / 90), 12);
    expect(histogramQuantile(new Map(), 0.95)).toBeNull();
    expect(histogramQuantile(new Map([[LATENCY_BUCKETS_MS.length, 3]]), 0.95)).toBe(10000);
  });
});
