import { describe, expect, it } from 'vitest';
import { DecayedSums } from '../../../src/ranking/decayed-sums.js';

const DAY = 86_400_000;
const H = 14 * DAY;

/** The same sums computed the direct way: every contribution decayed on its own. */
function direct(events: readonly [string, number, number][], key: string, nowMs: number): number {
  const latest = Math.max(...events.map((e) => e[2]));
  const at = Math.max(nowMs, latest);
  return events.filter((e) => e[0] === key).reduce((sum, [, amount, t]) => sum + amount * Math.pow(2, -(at - t) / H), 0);
}

describe('DecayedSums', () => {
  it('halves a contribution every half-life and sums contributions of different instants', () => {
    const sums = new DecayedSums(H);
    sums.add('a', 1, 0);
    expect(sums.valueAt('a', 0)).toBeCloseTo(1, 12);
    expect(sums.valueAt('a', H)).toBeCloseTo(0.5, 12);
    expect(sums.valueAt('a', 3 * H)).toBeCloseTo(0.125, 12);
    sums.add('a', 2, 2 * H);
    expect(sums.valueAt('a', 2 * H)).toBeCloseTo(0.25 + 2, 12);
    expect(sums.valueAt('missing', 2 * H)).toBe(0);
  });

  it('matches decaying every contribution separately, whatever the order they arrive in', () => {
    const events: [string, number, number][] = [
      ['x', 1, 5 * DAY],
      ['y', 1.5, 1 * DAY],
      ['x', -3, 9 * DAY],
      ['y', 2, 30 * DAY],
      ['x', 2, 2 * DAY],
    ];
    const sums = new DecayedSums(H);
    for (const [key, amount, t] of events) sums.add(key, amount, t);
    for (const now of [30 * DAY, 45 * DAY, 400 * DAY]) {
      expect(sums.valueAt('x', now)).toBeCloseTo(direct(events, 'x', now), 12);
      expect(sums.valueAt('y', now)).toBeCloseTo(direct(events, 'y', now), 12);
    }
    expect(Object.fromEntries(sums.entriesAt(45 * DAY))).toEqual({
      x: expect.closeTo(direct(events, 'x', 45 * DAY), 12),
      y: expect.closeTo(direct(events, 'y', 45 * DAY), 12),
    });
  });

  it('gives the same values as parallel arrays', () => {
    const sums = new DecayedSums(H);
    sums.addAll(
      [
        ['a', 1],
        ['b', -2],
      ],
      0,
    );
    sums.add('c', 3, 7 * DAY);
    const columns = sums.columnsAt(20 * DAY);
    expect(columns.keys).toEqual(['a', 'b', 'c']);
    expect(Array.from(columns.values)).toEqual(sums.entriesAt(20 * DAY).map(([, v]) => v));
  });

  it('is not grown back to an instant before the latest contribution', () => {
    const sums = new DecayedSums(H);
    sums.add('a', 1, 10 * DAY);
    expect(sums.valueAt('a', 0)).toBeCloseTo(1, 12);
  });

  it('undoes a contribution by adding its opposite at the same instant', () => {
    const sums = new DecayedSums(H);
    sums.add('a', 1, 0);
    sums.add('a', 1.5, DAY);
    sums.add('a', -1.5, DAY);
    expect(sums.valueAt('a', DAY)).toBeCloseTo(Math.pow(2, -1 / 14), 12);
  });

  it('rescales to a later reference instead of overflowing over decades', () => {
    const sums = new DecayedSums(H);
    sums.add('old', 1, 0);
    const decades = 40 * 365 * DAY; // ~1,040 half-lives: 2^1040 would overflow a double
    sums.add('new', 1, decades);
    expect(sums.valueAt('new', decades)).toBeCloseTo(1, 12);
    expect(Number.isFinite(sums.valueAt('old', decades))).toBe(true);
    expect(sums.valueAt('old', decades)).toBeCloseTo(0, 12); // 2^-1040: decayed away, not NaN or Infinity
    sums.add('new', 1, decades + H);
    expect(sums.valueAt('new', decades + H)).toBeCloseTo(1.5, 12);
  });

  it('keeps the keys of largest magnitude, negatives included', () => {
    const sums = new DecayedSums(H);
    sums.addAll(
      [
        ['a', 1],
        ['b', -5],
        ['c', 0.1],
        ['d', 3],
      ],
      0,
    );
    sums.keepStrongest(2);
    expect(sums.size).toBe(2);
    expect(
      sums
        .entriesAt(0)
        .map(([k]) => k)
        .sort(),
    ).toEqual(['b', 'd']);
  });
});
