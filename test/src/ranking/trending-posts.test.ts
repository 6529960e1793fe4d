/**
 * Trending posts count distinct engagers, grouped by instance, and list them under the source
 * shares page by page: one instance's mass-created accounts or authors cannot take trending.
 * Reference numbers computed with Python 3 (math.log2, 2 ** x), noted beside each.
 */
import { describe, expect, it } from 'vitest';
import {
  accountAgeWeight,
  computeTrendingPosts,
  distinctEngagement,
  engagerGroups,
  TRENDING_PAGE_SIZE,
  type EngagerGroup,
  type TrendCandidate,
} from '../../../src/ranking/index.js';

const NOW = Date.UTC(2026, 10, 27, 12);
const HOUR = 3_600_000;

const fav = (instance: string, favourites: number, reblogs = 0): EngagerGroup => ({ instance, favourites, reblogs });

function candidate(
  id: string,
  groups: EngagerGroup[],
  options: { ageHours?: number; source?: string; author?: string } = {},
): TrendCandidate {
  return {
    id,
    createdAtMs: NOW - (options.ageHours ?? 1) * HOUR,
    engagement: distinctEngagement(groups),
    sourceInstance: options.source ?? '',
    accountId: options.author ?? `author-of-${id}`,
  };
}

const DAY = 86_400_000;

describe('accountAgeWeight: the new-account discount', () => {
  it('is 0.1 on the first day, rises linearly to 1 at 30 days, and stays 1', () => {
    // 0.1 + 0.9 · min(1, age / 30 d), by hand: 0 → 0.1, 15 d → 0.55, 3 d → 0.19, 30 d and later → 1.
    expect(accountAgeWeight(0)).toBe(0.1);
    expect(accountAgeWeight(15 * DAY)).toBeCloseTo(0.55, 12);
    expect(accountAgeWeight(3 * DAY)).toBeCloseTo(0.19, 12);
    expect(accountAgeWeight(30 * DAY)).toBe(1);
    expect(accountAgeWeight(3650 * DAY)).toBe(1);
    // A created_at in the future, or none: counted as new.
    expect(accountAgeWeight(-5 * DAY)).toBe(0.1);
    expect(accountAgeWeight(Number.NaN)).toBe(0.1);
  });

  it('weights each user by its age when it acted, per post and instance; unknown users count as new', () => {
    const since = new Map([
      ['1@a.example', NOW - 60 * DAY],
      ['2@a.example', NOW - 15 * DAY],
      ['api1', NOW - 3 * DAY],
    ]);
    const groups = engagerGroups(
      [
        { postId: 'p', userId: '1@a.example', favouritedAtMs: NOW, rebloggedAtMs: null },
        { postId: 'p', userId: '2@a.example', favouritedAtMs: NOW, rebloggedAtMs: NOW },
        { postId: 'p', userId: '9@b.example', favouritedAtMs: NOW, rebloggedAtMs: null },
        { postId: 'p', userId: 'api1', favouritedAtMs: NOW, rebloggedAtMs: null },
      ],
      (userId) => since.get(userId),
    );
    const byInstance = new Map(groups.map((g) => [g.instance, g]));
    expect(byInstance.get('a.example')?.favourites).toBeCloseTo(1.55, 12);
    expect(byInstance.get('a.example')?.reblogs).toBeCloseTo(0.55, 12);
    expect(byInstance.get('b.example')?.favourites).toBe(0.1);
    expect(byInstance.get('')?.favourites).toBeCloseTo(0.19, 12);
    // python: log2(1+1.55) + 2*log2(1+0.55) + log2(1+0.1) + 0.19 = 2.942537201833094
    expect(distinctEngagement(groups)).toBeCloseTo(2.942537201833094, 12);
  });

  it('a burst of 100 fresh accounts over 10 instances weighs less than 24 established ones over 8', () => {
    const burst = Array.from({ length: 10 }, (_, i) => fav(`fresh${i}.example`, 10 * accountAgeWeight(0)));
    const organic = Array.from({ length: 8 }, (_, i) => fav(`organic${i}.example`, 3 * accountAgeWeight(90 * DAY)));
    // 10 · log2(2) = 10 against 8 · log2(4) = 16; undiscounted the burst would weigh 10 · log2(11) ≈ 34.6.
    expect(distinctEngagement(burst)).toBeCloseTo(10, 12);
    expect(distinctEngagement(organic)).toBe(16);
  });
});

describe('distinctEngagement', () => {
  it("counts each API user plainly, each instance's n engagers of an action as log2(1 + n), reblogs twice a favourite", () => {
    expect(distinctEngagement([fav('', 3, 2)])).toBe(3 + 2 * 2);
    // python: 1*log2(1+3) + 2*log2(1+1) = 4.0
    expect(distinctEngagement([fav('a.example', 3, 1)])).toBe(4);
    // python: math.log2(1001) = 9.967226258835993
    expect(distinctEngagement([fav('evil.example', 1000)])).toBeCloseTo(9.967226258835993, 12);
    // One engager per instance counts as one: ten instances with one favourite each = ten API users.
    const tenOnes = Array.from({ length: 10 }, (_, i) => fav(`i${i}.example`, 1));
    expect(distinctEngagement(tenOnes)).toBe(distinctEngagement([fav('', 10)]));
    expect(distinctEngagement([])).toBe(0);
  });

  it('1,000 engagers from one instance weigh less than 30 from 10 instances', () => {
    const honest = Array.from({ length: 10 }, (_, i) => fav(`honest${i}.example`, 3));
    // python: 10 * log2(1 + 3) = 20.0
    expect(distinctEngagement(honest)).toBe(20);
    expect(distinctEngagement([fav('evil.example', 1000)])).toBeLessThan(distinctEngagement(honest) / 2);
  });

  it('is increasing in every count, so within one instance more engagers always weigh more', () => {
    for (let n = 0; n < 3000; n += 1) {
      expect(distinctEngagement([fav('one.example', n + 1)])).toBeGreaterThan(distinctEngagement([fav('one.example', n)]));
      expect(distinctEngagement([fav('one.example', 2, n + 1)])).toBeGreaterThan(distinctEngagement([fav('one.example', 2, n)]));
    }
  });

  it('reads negative and non-finite counts as 0', () => {
    expect(distinctEngagement([fav('a.example', -5, Number.NaN), fav('', Number.POSITIVE_INFINITY, -1)])).toBe(0);
  });
});

describe('computeTrendingPosts', () => {
  it('scores engagement · 2^(−age/12 h), leaves out posts without engagement, newer id first on ties', () => {
    const posts = [
      candidate('100', [fav('a.example', 5)], { ageHours: 3 }),
      candidate('200', [], { ageHours: 1 }),
      candidate('300', [fav('', 2)], { ageHours: 0 }),
      candidate('400', [fav('', 2)], { ageHours: 0 }),
    ];
    const listed = computeTrendingPosts(posts, NOW, 10);
    expect(listed.map((p) => p.id)).toEqual(['100', '400', '300']);
    // python: math.log2(1 + 5) * 2 ** (-3 / 12) = 2.173685700421697 (to 15 digits)
    expect(listed[0]!.score).toBeCloseTo(2.173685700421697, 12);
    expect(listed[1]!.score).toBe(2);
  });

  it('ranks a post favourited by 30 users of 10 instances above one favourited by 1,000 accounts of one instance', () => {
    const hostile = candidate('900', [fav('evil.example', 1000)], { ageHours: 2, source: 'evil.example' });
    const honest = candidate(
      '100',
      Array.from({ length: 10 }, (_, i) => fav(`honest${i}.example`, 3)),
      { ageHours: 6, source: 'honest0.example' },
    );
    const listed = computeTrendingPosts([hostile, honest], NOW, 10);
    expect(listed.map((p) => p.id)).toEqual(['100', '900']);
    // python: 20 * 2 ** (-6 / 12) = 14.142135623730951; math.log2(1001) * 2 ** (-2 / 12) = 8.879789097411715
    expect(listed[0]!.score).toBeCloseTo(14.142135623730951, 12);
    expect(listed[1]!.score).toBeCloseTo(8.879789097411715, 12);
  });

  it('keeps the order of a community on one instance: more engagers at the same age rank higher', () => {
    const posts = Array.from({ length: 30 }, (_, i) =>
      candidate(String(1000 + i), [fav('one.example', (i * 37) % 101)], { ageHours: 5, source: 'one.example' }),
    );
    const expected = [...posts]
      .filter((p) => p.engagement > 0)
      .sort((a, b) => b.engagement - a.engagement || (a.id < b.id ? 1 : -1))
      .map((p) => p.id);
    // Every post from one instance: the instance's share is passed over only to be filled again, in order.
    expect(computeTrendingPosts(posts, NOW, 100).map((p) => p.id)).toEqual(expected);
  });

  it("50 attacker authors on one instance take at most the instance's share of each page while honest posts are left", () => {
    // Each attacker post engaged by 1,000 accounts of the attacker's instance, and fresher than every honest post.
    const attackers = Array.from({ length: 200 }, (_, i) =>
      candidate(String(900_000 + i), [fav('evil.example', 1000, 1000)], { ageHours: 0, source: 'evil.example', author: `evil${i % 50}` }),
    );
    const honest = Array.from({ length: 40 }, (_, i) =>
      candidate(String(100_000 + i), [fav(`honest${i % 10}.example`, 1), fav('', 1)], {
        ageHours: 10,
        source: `honest${i % 10}.example`,
        author: `honest-author${i}`,
      }),
    );
    const listed = computeTrendingPosts([...attackers, ...honest], NOW, 400);
    expect(listed).toHaveLength(240);
    const isAttacker = (id: string) => id.startsWith('9');
    // Honest posts fill 15 of each 20-post page while they last (15, 15, then the last 10 and 5 more attacker posts).
    const pages = Array.from({ length: Math.ceil(listed.length / TRENDING_PAGE_SIZE) }, (_, p) =>
      listed.slice(p * TRENDING_PAGE_SIZE, (p + 1) * TRENDING_PAGE_SIZE),
    );
    expect(pages.slice(0, 3).map((page) => page.filter((p) => isAttacker(p.id)).length)).toEqual([5, 5, 10]);
    // The first page: no attacker author twice, and its attacker posts are the top ones.
    const first = pages[0]!.filter((p) => isAttacker(p.id)).map((p) => p.id);
    expect(new Set(first.map((id) => Number(id) % 50)).size).toBe(first.length);
    // Every honest post is listed within the first three pages.
    expect(listed.slice(0, 60).filter((p) => !isAttacker(p.id))).toHaveLength(40);
    // Without the shares (one instance and author may take all), the attacker would own the first pages.
    const unshared = computeTrendingPosts([...attackers, ...honest], NOW, 400, { instance: 1, author: 1 });
    expect(unshared.slice(0, 200).every((p) => isAttacker(p.id))).toBe(true);
  });

  it('stops at `size`', () => {
    const posts = Array.from({ length: 50 }, (_, i) => candidate(String(100 + i), [fav('', 1 + i)]));
    const listed = computeTrendingPosts(posts, NOW, 7);
    expect(listed.map((p) => p.id)).toEqual(['149', '148', '147', '146', '145', '144', '143']);
  });
});
