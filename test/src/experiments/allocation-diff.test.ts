import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketOf, createAssigner } from '../../../src/experiments/assignment.js';
import { allocationDiff, bucketMoves, bucketOwners, proposedAllocations, userMoves } from '../../../src/experiments/allocation-diff.js';
import { ValidationError } from '../../../src/errors.js';

const split = (...pairs: [string, number][]) => pairs.map(([name, traffic_allocation]) => ({ name, traffic_allocation }));

/** Integer allocations over n variants summing to 100: cut points in 1..99. */
const allocations = fc.uniqueArray(fc.integer({ min: 1, max: 99 }), { minLength: 1, maxLength: 4 }).map((cuts) => {
  const points = [0, ...cuts.sort((a, b) => a - b), 100];
  return points.slice(1).map((end, i) => ({ name: `v${i}`, traffic_allocation: end - (points[i] as number) }));
});

describe('bucketMoves', () => {
  it('names the ranges that change owner: 50/50 -> 40/60 moves buckets 40..49 from control to treatment', () => {
    expect(bucketMoves(split(['control', 50], ['treatment', 50]), split(['control', 40], ['treatment', 60]))).toEqual([
      { start: 40, end: 50, from: 'control', to: 'treatment' },
    ]);
  });

  it('splits ranges by (from, to) and handles an added variant', () => {
    const moves = bucketMoves(split(['a', 50], ['b', 50]), split(['a', 30], ['b', 30], ['c', 40]));
    expect(moves).toEqual([
      { start: 30, end: 50, from: 'a', to: 'b' },
      { start: 60, end: 100, from: 'b', to: 'c' },
    ]);
  });

  it('moves nothing when the allocations are unchanged', () => {
    fc.assert(
      fc.property(allocations, (variants) => {
        expect(bucketMoves(variants, variants)).toEqual([]);
      }),
    );
  });

  it('moves exactly the buckets whose owner differs, each once', () => {
    fc.assert(
      fc.property(allocations, allocations, (current, proposed) => {
        const before = bucketOwners(current);
        const after = bucketOwners(proposed);
        const moved = new Set<number>();
        for (const range of bucketMoves(current, proposed)) {
          for (let b = range.start; b < range.end; b++) {
            expect(moved.has(b)).toBe(false);
            moved.add(b);
            expect([before[b], after[b]]).toEqual([range.from, range.to]);
          }
        }
        for (let b = 0; b < 100; b++) expect(moved.has(b)).toBe(before[b] !== after[b]);
      }),
    );
  });
});

describe('userMoves', () => {
  const users = Array.from({ length: 2000 }, (_, i) => `user-${i}`);

  it('moves nobody when assignments were made with the proposed allocations', async () => {
    await fc.assert(
      fc.asyncProperty(allocations, fc.integer({ min: 1, max: 1e6 }), async (variants, experimentId) => {
        const assign = createAssigner(experimentId, variants);
        const recorded = users
          .slice(0, 300)
          .map((user) => ({ bucket: bucketOf(user, experimentId), variant: assign(user).variant?.name as string }));
        const result = await userMoves(variants, recorded);
        expect(result).toEqual({ moves: [], users_assigned: 300 });
      }),
      { numRuns: 30 },
    );
  });

  it('counts exactly the users whose bucket lies in a moving range, per (from, to)', async () => {
    const current = split(['control', 50], ['treatment', 50]);
    const proposed = split(['control', 20], ['treatment', 80]);
    const assign = createAssigner(7, current);
    const recorded = users.map((user) => ({ bucket: bucketOf(user, 7), variant: assign(user).variant?.name as string }));
    const expected = users.filter((user) => bucketOf(user, 7) >= 20 && bucketOf(user, 7) < 50).length;
    expect(expected).toBeGreaterThan(0);
    const diff = await allocationDiff(current, proposed, recorded);
    expect(diff).toEqual({
      buckets: [{ start: 20, end: 50, from: 'control', to: 'treatment' }],
      buckets_moving: 30,
      moves: [{ from: 'control', to: 'treatment', users: expected }],
      users_assigned: users.length,
      users_moving: expected,
    });
  });

  it('reads the recorded variant, not the current ranges: a user recorded elsewhere counts as moving', async () => {
    const variants = split(['control', 50], ['treatment', 50]);
    const user = users.find((u) => bucketOf(u, 3) < 50) as string;
    const diff = await allocationDiff(variants, variants, [{ bucket: bucketOf(user, 3), variant: 'treatment' }]);
    expect(diff.buckets).toEqual([]);
    expect(diff.moves).toEqual([{ from: 'treatment', to: 'control', users: 1 }]);
  });
});

describe('proposedAllocations', () => {
  const current = split(['control', 50], ['treatment', 50]);

  it("puts the proposal in the experiment's variant order", () => {
    expect(proposedAllocations(current, split(['treatment', 60], ['control', 40]))).toEqual(split(['control', 40], ['treatment', 60]));
  });

  it.each([
    [split(['control', 40], ['other', 60]), 'variants[1].name', /not one of this experiment's variants/],
    [split(['control', 40], ['control', 60]), 'variants[1].name', /listed twice/],
    [split(['control', 0], ['treatment', 100]), 'variants[0].traffic_allocation', /greater than 0/],
    [split(['control', 40], ['treatment', 50]), 'variants', /add up to 100/],
    [split(['control', 100]), 'variants', /missing treatment/],
  ])('rejects %j naming %s', (proposal, field, message) => {
    let error: unknown;
    try {
      proposedAllocations(current, proposal);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe(field);
    expect((error as ValidationError).message).toMatch(message);
  });
});
