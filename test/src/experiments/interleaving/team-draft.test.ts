import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { interleaveRanked, teamOf } from '../../../../src/experiments/interleaving/interleave-ranked.js';
import { interleavingSeed, seededCoin, teamDraft, type Team } from '../../../../src/experiments/interleaving/team-draft.js';
import type { RankedItem } from '../../../../src/ranking/ranking.types.js';

const key = (id: string): string => id;
/** A ranking: distinct ids drawn from a small pool, so the two rankings overlap. */
const ranking = fc.uniqueArray(fc.integer({ min: 0, max: 30 }).map(String), { maxLength: 25 });
const coins = fc.array(fc.boolean(), { minLength: 1, maxLength: 40 });
const coinFrom = (flips: readonly boolean[]): (() => boolean) => {
  let i = 0;
  return () => flips[i++ % flips.length] as boolean;
};

describe('team draft', () => {
  it('merges without duplicates, credits each item to a ranking that holds it, and keeps team sizes within one', () => {
    fc.assert(
      fc.property(ranking, ranking, coins, fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }), (a, b, flips, limit) => {
        const merged = teamDraft(a, b, key, coinFrom(flips), limit);
        const ids = merged.map((p) => p.item);
        expect(new Set(ids).size).toBe(ids.length);
        if (limit !== undefined) expect(merged.length).toBeLessThanOrEqual(limit);
        let sizeA = 0;
        let sizeB = 0;
        for (const pick of merged) {
          expect((pick.team === 'A' ? a : b).includes(pick.item)).toBe(true);
          if (pick.team === 'A') sizeA++;
          else sizeB++;
          // Every prefix of the list: sizes differ by at most one.
          expect(Math.abs(sizeA - sizeB)).toBeLessThanOrEqual(1);
        }
      }),
    );
  });

  it("picks each team's highest item not yet in the list: every ranking's items above a pick come before it", () => {
    fc.assert(
      fc.property(ranking, ranking, coins, (a, b, flips) => {
        const merged = teamDraft(a, b, key, coinFrom(flips));
        const position = new Map(merged.map((p, i) => [p.item, i]));
        merged.forEach((pick, i) => {
          const list = pick.team === 'A' ? a : b;
          for (const above of list.slice(0, list.indexOf(pick.item))) {
            expect(position.get(above)).toBeLessThan(i);
          }
        });
        // Team A's items appear in A's order (and B's in B's).
        for (const [team, list] of [['A', a] as const, ['B', b] as const]) {
          const order = merged.filter((p) => p.team === team).map((p) => list.indexOf(p.item));
          expect(order).toEqual([...order].sort((x, y) => x - y));
        }
      }),
    );
  });

  it('stops when either ranking has nothing left to give, after at least as many items as the shorter ranking', () => {
    fc.assert(
      fc.property(ranking, ranking, coins, (a, b, flips) => {
        const merged = teamDraft(a, b, key, coinFrom(flips));
        expect(merged.length).toBeGreaterThanOrEqual(Math.min(a.length, b.length));
        const ids = new Set(merged.map((p) => p.item));
        expect(a.every((id) => ids.has(id)) || b.every((id) => ids.has(id))).toBe(true);
      }),
    );
  });

  it('lets the coin decide who picks first in each round', () => {
    const a = ['a1', 'a2', 'a3', 'a4'];
    const b = ['b1', 'b2', 'b3', 'b4'];
    const merged = teamDraft(a, b, key, coinFrom([true, false, false, true]));
    expect(merged.map((p) => `${p.team}:${p.item}`)).toEqual(['A:a1', 'B:b1', 'B:b2', 'A:a2', 'B:b3', 'A:a3', 'A:a4']);
    // A has nothing left after a4: the draft ends there (Radlinski's rule), b4 stays out.
    // Identical rankings: whoever picks first takes the top item; the other takes the next.
    const same = teamDraft(['x', 'y', 'z', 'w'], ['x', 'y', 'z', 'w'], key, coinFrom([false, true]));
    expect(same.map((p) => `${p.team}:${p.item}`)).toEqual(['B:x', 'A:y', 'A:z', 'B:w']);
  });

  it('seeds the coin per experiment, user and UTC day: reproducible, and fair over many seeds', () => {
    const day = Date.UTC(2026, 0, 5, 10);
    const seed = interleavingSeed(3, 'alice', day);
    expect(interleavingSeed(3, 'alice', day + 3_600_000)).toBe(seed);
    expect(interleavingSeed(3, 'alice', day + 86_400_000)).not.toBe(seed);
    expect(interleavingSeed(3, 'bob', day)).not.toBe(seed);
    const flips = (s: string): boolean[] => Array.from({ length: 20 }, seededCoin(s));
    expect(flips(seed)).toEqual(flips(seed));
    let heads = 0;
    for (let user = 0; user < 20_000; user++) if (seededCoin(interleavingSeed(1, `user${user}`, day))()) heads++;
    // Binomial(20000, 1/2): sd 70.7, so ±400 is more than 5 sd.
    expect(Math.abs(heads - 10_000)).toBeLessThan(400);
  });
});

describe('interleaveRanked', () => {
  const item = (id: string, score: number): RankedItem =>
    ({ post: { id }, score, features: {}, reasonCode: 'RECENT', reasonText: 'recent', coldStart: false }) as unknown as RankedItem;

  it("ranks with both configs, keeps the contributing ranker's item and tags its team", () => {
    const lists: Record<string, RankedItem[]> = {
      a: [item('1', 0.9), item('2', 0.8), item('3', 0.7)],
      b: [item('3', 0.6), item('4', 0.5), item('1', 0.4)],
    };
    const merged = interleaveRanked({ configs: ['a', 'b'], seed: 'seed' }, (config) => lists[config] ?? [], 3);
    expect(merged).toHaveLength(3);
    for (const m of merged) {
      const team = teamOf(m) as Team;
      const own = lists[team === 'A' ? 'a' : 'b']?.find((i) => i.post.id === m.post.id);
      expect(own?.score).toBe(m.score);
    }
    expect(teamOf(item('9', 1))).toBeUndefined();
  });
});
