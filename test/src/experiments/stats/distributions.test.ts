import { describe, expect, it } from 'vitest';
import {
  chiSquareSf,
  normalCdf,
  normalQuantile,
  normalSf,
  regularizedGammaQ,
  twoSidedPValue,
} from '../../../../src/experiments/stats/distributions.js';
import { readFixture } from './reference-data.js';

interface DistributionReference {
  provenance: Record<string, string>;
  normal_sf: [number, number][];
  normal_ppf: [number, number][];
  chi2_sf: [number, number, number][];
}

const reference = readFixture<DistributionReference>('reference-distributions.json');
const relativeError = (actual: number, expected: number): number =>
  expected === 0 ? Math.abs(actual) : Math.abs(actual - expected) / Math.abs(expected);

describe('distribution functions against scipy.stats', () => {
  it('normalSf matches scipy.stats.norm.sf to 1e-12 relative, deep into the tail', () => {
    for (const [z, expected] of reference.normal_sf) expect(relativeError(normalSf(z), expected), `z=${z}`).toBeLessThan(1e-12);
  });

  it('normalQuantile matches scipy.stats.norm.ppf to 1e-13 relative', () => {
    for (const [p, expected] of reference.normal_ppf) expect(relativeError(normalQuantile(p), expected), `p=${p}`).toBeLessThan(1e-13);
  });

  it('chiSquareSf matches scipy.stats.chi2.sf to 1e-12 relative', () => {
    for (const [x, df, expected] of reference.chi2_sf)
      expect(relativeError(chiSquareSf(x, df), expected), `x=${x} df=${df}`).toBeLessThan(1e-12);
  });
});

describe('distribution identities', () => {
  it('Φ and its inverse are inverses, and the two tails add to 1', () => {
    for (const p of [1e-10, 0.01, 0.2, 0.5, 0.9, 0.999]) expect(normalCdf(normalQuantile(p))).toBeCloseTo(p, 14);
    for (const z of [-4, -1, 0, 0.5, 2]) expect(normalSf(z) + normalCdf(z)).toBeCloseTo(1, 15);
  });

  it('chi-square with 1 df is the square of a normal: Q(x, 1) = 2·Q_N(√x)', () => {
    for (const x of [0.01, 1, 3.841458820694124, 25, 200])
      expect(relativeError(chiSquareSf(x, 1), twoSidedPValue(Math.sqrt(x)))).toBeLessThan(1e-12);
  });

  it('chi-square with 2 df has the closed form e^(−x/2)', () => {
    for (const x of [0.1, 2, 10, 100, 1000]) expect(relativeError(chiSquareSf(x, 2), Math.exp(-x / 2))).toBeLessThan(1e-12);
  });

  it('handles the edges without NaN where the answer is defined', () => {
    expect(normalSf(Number.POSITIVE_INFINITY)).toBe(0);
    expect(normalSf(Number.NEGATIVE_INFINITY)).toBe(1);
    expect(normalQuantile(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(normalQuantile(1)).toBe(Number.POSITIVE_INFINITY);
    expect(chiSquareSf(0, 3)).toBe(1);
    expect(regularizedGammaQ(2, Number.POSITIVE_INFINITY)).toBe(0);
    expect(Number.isNaN(normalQuantile(1.5))).toBe(true);
  });
});
