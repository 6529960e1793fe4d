import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planSeamlessInsertions } from '../../../src/ranking/index.js';

describe('planSeamlessInsertions', () => {
  it('spreads about 0.3 of the timeline evenly, never at the top', () => {
    expect(planSeamlessInsertions(20, 20, 20)).toEqual([3, 6, 9, 11, 14, 17]);
    expect(planSeamlessInsertions(10, 20, 20, 0.4)).toEqual([2, 4, 6, 8]);
  });

  it('is capped by the recommendations available and the requested maximum', () => {
    expect(planSeamlessInsertions(20, 2, 20)).toEqual([7, 13]);
    expect(planSeamlessInsertions(20, 20, 1)).toEqual([10]);
    expect(planSeamlessInsertions(20, 0, 20)).toEqual([]);
  });

  it('handles short timelines', () => {
    expect(planSeamlessInsertions(0, 5, 5)).toEqual([]);
    expect(planSeamlessInsertions(1, 5, 5)).toEqual([]);
    expect(planSeamlessInsertions(2, 5, 5)).toEqual([1]);
    expect(planSeamlessInsertions(3, 5, 5, 1)).toEqual([1, 2, 3]);
  });

  it('never places two recommendations next to each other and stays within the timeline', () => {
    fc.assert(
      fc.property(fc.nat(200), fc.nat(60), fc.nat(60), fc.double({ min: 0, max: 1, noNaN: true }), (length, available, max, ratio) => {
        const points = planSeamlessInsertions(length, available, max, ratio);
        expect(points.length).toBe(Math.min(Math.round(ratio * length), available, max, length));
        points.forEach((p, i) => {
          expect(Number.isInteger(p)).toBe(true);
          expect(p).toBeGreaterThanOrEqual(1);
          expect(p).toBeLessThanOrEqual(length);
          // Distinct "insert before index p" points leave at least one status between two recommendations.
          if (i > 0) expect(p).toBeGreaterThan(points[i - 1] ?? Infinity);
        });
      }),
    );
  });
});
