import { describe, expect, it } from 'vitest';
import { holmAdjust } from '../../../../src/experiments/stats/holm.js';
import { COUNT_KEYS, emptyCounts, metricTerms, type UserCounts } from '../../../../src/experiments/metrics.js';
import { sampleRatioMismatch } from '../../../../src/experiments/stats/srm.js';
import { VariantAccumulator } from '../../../../src/experiments/stats/variant-accumulator.js';
import { createRandom as seededRandom } from '../../../../src/random.js';

function randomUsers(n: number, seed: number, offset = 0): UserCounts[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => {
    const counts = emptyCounts();
    for (const key of COUNT_KEYS) counts[key] = Math.floor(random() * 20);
    counts.session_seconds = offset + Math.floor(random() * 100);
    return counts;
  });
}

/** Two-pass reference: means first, then centred sums. */
function twoPass(users: readonly UserCounts[]) {
  const pairs = users.map((u) => metricTerms('session_duration', u));
  const n = pairs.length;
  const mx = pairs.reduce((s, [x]) => s + x, 0) / n;
  const my = pairs.reduce((s, [, y]) => s + y, 0) / n;
  return {
    m2x: pairs.reduce((s, [x]) => s + (x - mx) ** 2, 0),
    m2y: pairs.reduce((s, [, y]) => s + (y - my) ** 2, 0),
    cxy: pairs.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0),
  };
}

describe('VariantAccumulator', () => {
  it('matches a two-pass computation even with a huge common offset (where Σx² − n·x̄² cancels)', () => {
    const users = randomUsers(5000, 11, 1e9);
    const accumulator = new VariantAccumulator('v');
    for (const user of users) accumulator.add(user);
    const m = accumulator.moments('session_duration');
    const reference = twoPass(users);
    expect(m.n).toBe(5000);
    expect(Math.abs(m.m2x - reference.m2x) / reference.m2x).toBeLessThan(1e-6);
    expect(Math.abs(m.cxy - reference.cxy) / Math.abs(reference.cxy)).toBeLessThan(1e-6);
    const sumSquares = users.reduce((s, u) => s + u.session_seconds ** 2, 0);
    const naive = sumSquares - users.reduce((s, u) => s + u.session_seconds, 0) ** 2 / users.length;
    expect(Math.abs(naive - reference.m2x) / reference.m2x).toBeGreaterThan(1e-3);
  });

  it('merges shards into the same statistics as one pass', () => {
    const users = randomUsers(3001, 5);
    const whole = new VariantAccumulator('v');
    for (const user of users) whole.add(user);
    const shards = [new VariantAccumulator('v'), new VariantAccumulator('v'), new VariantAccumulator('v')];
    users.forEach((user, i) => shards[i % 3]?.add(user));
    const merged = new VariantAccumulator('v');
    for (const shard of shards) merged.merge(shard);
    for (const metric of ['click_through_rate', 'user_satisfaction'] as const) {
      const a = whole.moments(metric);
      const b = merged.moments(metric);
      expect(b.n).toBe(a.n);
      expect(b.sumX).toBe(a.sumX);
      for (const key of ['meanX', 'meanY', 'm2x', 'm2y', 'cxy'] as const) expect(b[key]).toBeCloseTo(a[key], 6);
    }
  });

  it('adds rows in COUNT_KEYS order exactly like objects, and counts zero-denominator users', () => {
    const a = new VariantAccumulator('v');
    const b = new VariantAccumulator('v');
    for (const user of [...randomUsers(10, 3), emptyCounts()]) {
      a.add(user);
      b.addRow(COUNT_KEYS.map((key) => user[key]));
    }
    expect(b.moments('bounce_rate')).toEqual(a.moments('bounce_rate'));
    expect(a.users).toBe(11);
  });
});

describe('holmAdjust and sampleRatioMismatch', () => {
  it('applies the Holm step-down with monotonicity, in input order, skipping nulls', () => {
    const adjusted = holmAdjust([0.01, 0.04, null, 0.03]);
    expect(adjusted[0]).toBeCloseTo(0.03, 15);
    expect(adjusted[1]).toBeCloseTo(0.06, 15);
    expect(adjusted[2]).toBeNull();
    expect(adjusted[3]).toBeCloseTo(0.06, 15);
    expect(holmAdjust([0.6, 0.9])).toEqual([1, 1]);
  });

  it('flags a split far from the allocations and not one close to them', () => {
    expect(sampleRatioMismatch([5000, 5050], [50, 50]).mismatch).toBe(false);
    const canary = sampleRatioMismatch([9000, 1000], [90, 10]);
    expect(canary).toEqual({ chi_square: 0, p_value: 1, mismatch: false });
    const bad = sampleRatioMismatch([5000, 5400], [50, 50]);
    expect(bad.mismatch).toBe(true);
    expect(bad.chi_square).toBeCloseTo((200 ** 2 / 5200) * 2, 10);
  });
});
