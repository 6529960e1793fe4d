import { describe, expect, it } from 'vitest';
import {
  assignVariant,
  bucketOf,
  createAssigner,
  explainBucket,
  isInTraffic,
  trafficBucketOf,
  variantForBucket,
  variantRanges,
} from '../../../src/experiments/assignment.js';
import { chiSquareSf } from '../../../src/experiments/stats/distributions.js';
import { readFixture } from './stats/reference-data.js';

interface BucketCase {
  user_id: string;
  experiment_id: string;
  input: string;
  md5: string;
  hex8: string;
  integer: number;
  bucket: number;
  traffic_bucket: number;
}

const known = readFixture<{ provenance: Record<string, string>; cases: BucketCase[] }>('assignment-buckets.json');

/** Pearson's χ² of observed counts against equal expected counts, and its p-value. */
function uniformity(counts: readonly number[]): number {
  const total = counts.reduce((a, b) => a + b, 0);
  const expected = total / counts.length;
  const chi = counts.reduce((sum, o) => sum + (o - expected) ** 2 / expected, 0);
  return chiSquareSf(chi, counts.length - 1);
}

describe('bucketing by the spec rule', () => {
  it('reproduces buckets computed independently with coreutils md5sum', () => {
    expect(known.provenance.tool).toMatch(/md5sum/);
    expect(known.cases.length).toBeGreaterThanOrEqual(10);
    for (const c of known.cases) {
      expect(bucketOf(c.user_id, c.experiment_id), c.input).toBe(c.bucket);
      expect(trafficBucketOf(c.user_id, c.experiment_id), `${c.input}_traffic`).toBe(c.traffic_bucket);
      expect(explainBucket(c.user_id, c.experiment_id)).toEqual({
        input: c.input,
        md5: c.md5,
        hex8: c.hex8,
        integer: c.integer,
        bucket: c.bucket,
      });
    }
  });

  it('accepts numeric ids as their decimal text', () => {
    expect(bucketOf(12345, 7)).toBe(bucketOf('12345', '7'));
  });

  it('spreads 100,000 users uniformly over the 100 buckets (χ² goodness of fit)', () => {
    const counts = new Array<number>(100).fill(0);
    for (let i = 0; i < 100_000; i++) counts[bucketOf(`user${i}`, 17)]! += 1;
    expect(uniformity(counts)).toBeGreaterThan(0.001);
  });

  it('keeps traffic gating independent of the variant bucket (2×2 contingency χ²)', () => {
    const table = [0, 0, 0, 0];
    for (let i = 0; i < 50_000; i++) {
      const inTraffic = trafficBucketOf(i, 3) < 50 ? 1 : 0;
      const low = bucketOf(i, 3) < 50 ? 1 : 0;
      table[inTraffic * 2 + low]! += 1;
    }
    const [a, b, c, d] = table as [number, number, number, number];
    const n = a + b + c + d;
    const chi = (n * (a * d - b * c) ** 2) / ((a + b) * (c + d) * (a + c) * (b + d));
    expect(chiSquareSf(chi, 1)).toBeGreaterThan(0.001);
  });
});

describe('variant ranges', () => {
  const variants = [
    { name: 'control', traffic_allocation: 40 },
    { name: 'a', traffic_allocation: 20 },
    { name: 'b', traffic_allocation: 20 },
    { name: 'c', traffic_allocation: 20 },
  ];

  it('gives 40/20/20/20 the spec example ranges: below 40, below 60, below 80, the rest', () => {
    const ranges = variantRanges(variants);
    const owner = (bucket: number): string | undefined => variantForBucket(ranges, bucket)?.name;
    expect([0, 39, 40, 59, 60, 79, 80, 99].map(owner)).toEqual(['control', 'control', 'a', 'a', 'b', 'b', 'c', 'c']);
    const sizes = new Map<string, number>();
    for (let bucket = 0; bucket < 100; bucket++) sizes.set(owner(bucket) as string, (sizes.get(owner(bucket) as string) ?? 0) + 1);
    expect(Object.fromEntries(sizes)).toEqual({ control: 40, a: 20, b: 20, c: 20 });
  });

  it('assigns each user the variant owning their bucket, stably', () => {
    for (const user of ['alice', 'bob', 'carol', 'dave']) {
      const first = assignVariant(user, 1, variants);
      expect(first.bucket).toBe(bucketOf(user, 1));
      expect(first.variant).toBe(variantForBucket(variantRanges(variants), first.bucket));
      expect(assignVariant(user, 1, variants)).toEqual(first);
    }
  });

  it('gives a fractional canary the whole buckets its range covers', () => {
    const canaryFirst = variantRanges([
      { name: 'canary', traffic_allocation: 0.5 },
      { name: 'control', traffic_allocation: 99.5 },
    ]);
    expect(variantForBucket(canaryFirst, 0)?.name).toBe('canary');
    expect(variantForBucket(canaryFirst, 1)?.name).toBe('control');
    const thirds = variantRanges([
      { name: 'x', traffic_allocation: 100 / 3 },
      { name: 'y', traffic_allocation: 100 / 3 },
      { name: 'z', traffic_allocation: 100 / 3 },
    ]);
    expect(variantForBucket(thirds, 99)?.name).toBe('z');
  });

  it('enrols only users whose traffic bucket is below traffic_percentage', () => {
    let enrolled = 0;
    for (let i = 0; i < 2000; i++) {
      const assignment = assignVariant(`u${i}`, 9, variants, 30);
      expect(assignment.variant !== undefined).toBe(isInTraffic(`u${i}`, 9, 30));
      expect(assignment.variant !== undefined).toBe(trafficBucketOf(`u${i}`, 9) < 30);
      if (assignment.variant !== undefined) enrolled++;
    }
    expect(enrolled / 2000).toBeGreaterThan(0.25);
    expect(enrolled / 2000).toBeLessThan(0.35);
  });

  // Its speed (a million users) is a benchmark figure, not a test: bench/cli/in-process-1m.js.
  it('createAssigner agrees with assignVariant, numeric ids as their text', () => {
    const assign = createAssigner(5, variants, 80);
    for (let i = 0; i < 1000; i++) expect(assign(`u${i}`)).toEqual(assignVariant(`u${i}`, 5, variants, 80));
    const fast = createAssigner(5, variants);
    for (let i = 0; i < 1000; i++) expect(fast(i)).toEqual(assignVariant(String(i), 5, variants));
  });
});
