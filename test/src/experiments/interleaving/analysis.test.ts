import { describe, expect, it } from 'vitest';
import {
  analyzeInterleaving,
  countPreferences,
  preferenceOf,
  signTestPValue,
  wilsonInterval,
} from '../../../../src/experiments/interleaving/analysis.js';
import { readFixture } from '../stats/reference-data.js';

interface Reference {
  provenance: Record<string, string>;
  sign_test: { k: number; n: number; p_value: number }[];
  wilson: { k: number; n: number; confidence_level: number; interval: [number, number] }[];
}

const reference = readFixture<Reference>('reference-interleaving.json');

describe('interleaving statistics against exact reference values (generate_interleaving.py)', () => {
  it('has its provenance', () => {
    expect(reference.provenance.script).toBe('test/fixtures/stats/generate_interleaving.py');
    expect(reference.sign_test.length).toBeGreaterThan(15);
  });

  it.each(reference.sign_test)('sign test: $k of $n', ({ k, n, p_value }) => {
    const p = signTestPValue(k, n) as number;
    expect(Math.abs(p - p_value) / p_value).toBeLessThan(1e-9);
  });

  it.each(reference.wilson)('Wilson interval: $k of $n at $confidence_level', ({ k, n, confidence_level, interval }) => {
    const [low, high] = wilsonInterval(k, n, confidence_level) as [number, number];
    expect(low).toBeCloseTo(interval[0], 12);
    expect(high).toBeCloseTo(interval[1], 12);
  });

  it('has no test without preferences, and refuses impossible counts', () => {
    expect(signTestPValue(0, 0)).toBeNull();
    expect(wilsonInterval(0, 0, 0.95)).toBeNull();
    expect(() => signTestPValue(3, 2)).toThrow(RangeError);
  });
});

describe('preferences', () => {
  it('prefers the team with more credited clicks; equal credits are ties; no clicks, no preference', () => {
    expect(preferenceOf({ a: 2, b: 1 })).toBe('A');
    expect(preferenceOf({ a: 0, b: 1 })).toBe('B');
    expect(preferenceOf({ a: 2, b: 2 })).toBe('tie');
    expect(preferenceOf({ a: 0, b: 0 })).toBe('none');
    expect(
      countPreferences([
        { a: 2, b: 1 },
        { a: 0, b: 1 },
        { a: 1, b: 1 },
        { a: 0, b: 0 },
      ]),
    ).toEqual({ users: 4, winsA: 1, winsB: 1, ties: 1, noClicks: 1, creditedA: 3, creditedB: 3 });
  });

  it('reports the share of A among users with a preference, ties excluded, with its interval and the sign test', () => {
    const users = [
      ...Array.from({ length: 9 }, () => ({ a: 1, b: 0 })),
      { a: 0, b: 3 },
      ...Array.from({ length: 5 }, () => ({ a: 2, b: 2 })),
      ...Array.from({ length: 7 }, () => ({ a: 0, b: 0 })),
    ];
    const result = analyzeInterleaving(users, { confidenceLevel: 0.95, minimumSampleSize: 10 });
    expect(result).toMatchObject({ users: 22, winsA: 9, winsB: 1, ties: 5, noClicks: 7, preferenceShare: 0.9 });
    expect(result.pValue).toBeCloseTo(0.021484375, 12); // 2 * (1 + 10) / 1024
    expect(result.ciLow).toBeCloseTo(wilsonInterval(9, 10, 0.95)?.[0] as number, 15);
    expect(result.significant).toBe(true);
    // Below the minimum sample size of users with a preference: underpowered, never significant.
    const small = analyzeInterleaving(users, { confidenceLevel: 0.95, minimumSampleSize: 11 });
    expect(small).toMatchObject({ underpowered: true, significant: false });
  });
});
