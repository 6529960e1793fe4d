/**
 * The co-engagement state's bookkeeping: planted structure recovered, bounds held, undo and
 * deletion, and the live writers' rule equal to the replay a server rebuilds from.
 */
import { describe, expect, it } from 'vitest';
import {
  CoEngagement,
  CoEngagementReplay,
  coEngagementSimilarity,
  collaborativeMatches,
  MAX_RECENT_POSTS,
  recentOtherPosts,
  replayCoEngagement,
  type CoEngagementEvent,
  type CoEngagementReader,
} from '../../../src/ranking/index.js';
import { createRandom, randomInt } from '../../../src/random.js';

/**
 * Planted structure: 8 communities of 40 users, each community engaging with its own 25
 * posts (community c owns posts c·25 … c·25+24) 85% of the time and any post otherwise.
 */
function plantedEvents(seed = 1): CoEngagementEvent[] {
  const random = createRandom(seed);
  const events: CoEngagementEvent[] = [];
  for (let round = 0; round < 30; round++) {
    for (let u = 0; u < 320; u++) {
      const community = u % 8;
      const post = random() < 0.85 ? community * 25 + randomInt(random, 25) : randomInt(random, 200);
      events.push({ userId: `u${u}`, postId: `p${post}` });
    }
  }
  return events;
}

const communityOf = (postId: string): number => Math.floor(Number(postId.slice(1)) / 25);

describe('CoEngagement', () => {
  it("recovers planted communities: a post's strongest neighbours are its community's", () => {
    const state = replayCoEngagement(plantedEvents(), { neighboursPerPost: 10 });
    let same = 0;
    let total = 0;
    for (let p = 0; p < 200; p++) {
      const top = state.neighbours(`p${p}`).slice(0, 5);
      expect(top.length).toBe(5);
      for (const n of top) {
        total += 1;
        if (communityOf(n.id) === communityOf(`p${p}`)) same += 1;
      }
    }
    // By chance alone 1 in 8 would be.
    expect(same / total).toBeGreaterThan(0.95);
  });

  it("scores a user's co-engaged posts from their community highest", () => {
    const state = replayCoEngagement(plantedEvents(2));
    const matches = collaborativeMatches(state, ['p50', 'p51', 'p52']);
    const best = [...matches].sort((a, b) => b[1].value - a[1].value).slice(0, 10);
    expect(best.every(([id]) => communityOf(id) === 2)).toBe(true);
    expect(best[0]![1].value).toBe(1);
    expect(['p50', 'p51', 'p52']).toContain(best[0]![1].seedId);
    for (const own of ['p50', 'p51', 'p52']) expect(matches.has(own)).toBe(false);
  });

  it("serves each post's most similar neighbours, at most servedPerPost, and the planted community among them", () => {
    const state = replayCoEngagement(plantedEvents(4), { neighboursPerPost: 100, servedPerPost: 6 });
    let same = 0;
    let total = 0;
    for (let p = 0; p < 200; p++) {
      const served: { id: string; sim: number }[] = [];
      state.forEachServedNeighbour(`p${p}`, (id, sim) => served.push({ id, sim }));
      expect(served).toHaveLength(6);
      // Most similar first, each the similarity of its kept count.
      for (let i = 1; i < served.length; i++) expect(served[i]!.sim).toBeLessThanOrEqual(served[i - 1]!.sim);
      const kept = new Map(state.neighbours(`p${p}`).map((n) => [n.id, n.count]));
      for (const n of served) {
        expect(n.sim).toBeCloseTo(coEngagementSimilarity(kept.get(n.id)!, state.engaged(`p${p}`), state.engaged(n.id)), 6);
        total += 1;
        if (communityOf(n.id) === communityOf(`p${p}`)) same += 1;
      }
      // None left out is more similar than the last served.
      const least = served[served.length - 1]!.sim;
      for (const [id, count] of kept)
        if (!served.some((n) => n.id === id))
          expect(coEngagementSimilarity(count, state.engaged(`p${p}`), state.engaged(id))).toBeLessThanOrEqual(least + 1e-6);
    }
    expect(same / total).toBeGreaterThan(0.95);
  });

  it('recomputes a served list when its post changes, and skips an evicted neighbour', () => {
    const state = new CoEngagement({ servedPerPost: 2, maxPosts: 4 });
    state.record('a', ['b', 'c'], 1);
    const served = (): string[] => {
      const out: string[] = [];
      state.forEachServedNeighbour('a', (id) => out.push(id));
      return out;
    };
    expect(served().sort()).toEqual(['b', 'c']);
    for (let i = 0; i < 3; i++) state.record('a', ['d'], 1);
    expect(served()[0]).toBe('d');
    expect(served()).toHaveLength(2);
    state.remove('d');
    expect(served()).not.toContain('d');
  });

  it('reads at most MAX_RECENT_POSTS seeds and servedPerPost neighbours of each per request', () => {
    const state = new CoEngagement({ neighboursPerPost: 100, servedPerPost: 5 });
    const seeds = Array.from({ length: MAX_RECENT_POSTS + 20 }, (_, i) => `s${i}`);
    for (const seed of seeds) for (let j = 0; j < 40; j++) state.record(seed, [`${seed}-n${j}`], 1);
    const matches = collaborativeMatches(state, seeds);
    expect(matches.size).toBe(MAX_RECENT_POSTS * 5);
    for (const [, match] of matches) expect(seeds.slice(0, MAX_RECENT_POSTS)).toContain(match.seedId);
  });

  it('keeps at most neighboursPerPost neighbours and at most maxPosts posts, dropping the least recently engaged', () => {
    const state = new CoEngagement({ maxPosts: 3, neighboursPerPost: 2 });
    state.record('a', ['b', 'c', 'd'], 1);
    expect(state.size).toBe(3);
    expect(state.postIds()).not.toContain('a');
    state.record('e', ['d'], 1);
    expect(state.size).toBe(3);
    const wide = new CoEngagement({ neighboursPerPost: 2 });
    wide.record('a', ['b', 'c', 'd', 'e'], 1);
    expect(wide.neighbours('a').length).toBeLessThanOrEqual(2);
  });

  it('keeps the lists a plain model of the rule keeps: entry by entry, in order, through evictions, undos and full lists', () => {
    // The rule written the obvious way (two passes per pairing: find the neighbour, then a full
    // list's first stale or first weakest entry), against the state's one-pass bump.
    const k = 4;
    const capacity = 12;
    const lru: string[] = [];
    const lists = new Map<string, { q: string; epoch: number; count: number }[]>();
    const engaged = new Map<string, number>();
    const epochs = new Map<string, number>();
    const epoch = (id: string): number => epochs.get(id) ?? 0;
    const evict = (id: string): void => {
      lru.splice(lru.indexOf(id), 1);
      lists.delete(id);
      engaged.delete(id);
      epochs.set(id, epoch(id) + 1);
    };
    const touch = (id: string): void => {
      if (lru.includes(id)) lru.splice(lru.indexOf(id), 1);
      else {
        if (lru.length >= capacity) evict(lru[0]!);
        lists.set(id, []);
        engaged.set(id, 0);
      }
      lru.push(id);
    };
    const bump = (a: string, b: string, w: number): void => {
      const list = lists.get(a)!;
      const at = list.findIndex((e) => e.q === b && e.epoch === epoch(b));
      if (at !== -1) {
        list[at]!.count += w;
        if (list[at]!.count <= 1e-9) list.splice(at, 1, ...(at === list.length - 1 ? [] : [list.pop()!]));
        return;
      }
      if (w <= 0) return;
      if (list.length < k) {
        list.push({ q: b, epoch: epoch(b), count: w });
        return;
      }
      let slot = list.findIndex((e) => e.epoch !== epoch(e.q));
      if (slot === -1) {
        slot = 0;
        list.forEach((e, j) => {
          if (e.count < list[slot]!.count) slot = j;
        });
        if (list[slot]!.count > w) {
          list[slot]!.count -= w;
          return;
        }
      }
      list[slot] = { q: b, epoch: epoch(b), count: w };
    };
    const record = (p: string, others: string[], w: number): void => {
      if (w > 0) touch(p);
      else if (!lru.includes(p)) return;
      engaged.set(p, Math.max(0, engaged.get(p)! + w));
      for (const q of others) {
        if (q === p) continue;
        if (w > 0) touch(q);
        else if (!lru.includes(q)) continue;
        if (!lru.includes(p)) continue;
        bump(p, q, w);
        bump(q, p, w);
      }
    };
    const state = new CoEngagement({ maxPosts: capacity, neighboursPerPost: k });
    const random = createRandom(27);
    for (let i = 0; i < 5000; i++) {
      const p = `p${randomInt(random, 20)}`;
      const others = Array.from({ length: randomInt(random, 5) }, () => `p${randomInt(random, 20)}`);
      const w = random() < 0.15 ? -1 : 1;
      record(p, others, w);
      state.record(p, others, w);
      if (i % 50 === 0 || i > 4900) {
        expect(new Set(state.postIds())).toEqual(new Set(lru));
        for (const id of lru) {
          const kept: [string, number][] = [];
          state.forEachNeighbour(id, (q, count) => kept.push([q, count]));
          expect(kept).toEqual(
            lists
              .get(id)!
              .filter((e) => e.epoch === epoch(e.q))
              .map((e) => [e.q, e.count]),
          );
          expect(state.engaged(id)).toBe(engaged.get(id));
        }
      }
    }
  });

  it('lowers its post capacity to what maxBytes allows', () => {
    const state = new CoEngagement({ maxPosts: 1_000_000, neighboursPerPost: 20, maxBytes: 1024 * 1024 });
    expect(state.capacity).toBeLessThan(10_000);
    for (let i = 0; i < 20_000; i++) state.record(`p${i}`, [`p${i + 1}`], 1);
    expect(state.size).toBeLessThanOrEqual(state.capacity);
    expect(state.estimatedBytes()).toBeLessThanOrEqual(1024 * 1024);
  });

  it('keeps a neighbour that recurs, however many one-off pairings pass through the list', () => {
    const state = new CoEngagement({ neighboursPerPost: 4 });
    for (let i = 0; i < 1000; i++) {
      state.record('hub', [`noise${i}`], 1);
      if (i % 3 === 0) state.record('hub', ['friend'], 1);
    }
    expect(state.neighbours('hub')[0]?.id).toBe('friend');
  });

  it('lets a neighbour that keeps coming displace old ones in a full list', () => {
    const state = new CoEngagement({ neighboursPerPost: 3 });
    for (const old of ['o1', 'o2', 'o3']) for (let i = 0; i < 2; i++) state.record('a', [old], 1);
    for (let i = 0; i < 12; i++) state.record('a', ['rising'], 1);
    expect(state.neighbours('a').map((n) => n.id)).toContain('rising');
    expect(state.neighbours('a')).toHaveLength(3);
  });

  it('an undo takes back its pairs; a deleted post leaves every list', () => {
    const state = new CoEngagement();
    state.record('a', ['b', 'c'], 1);
    state.record('a', ['b'], 1);
    state.record('a', ['b', 'c'], -1);
    expect(state.neighbours('a')).toEqual([{ id: 'b', count: 1 }]);
    expect(state.neighbours('c')).toEqual([]);
    state.remove('b');
    expect(state.neighbours('a')).toEqual([]);
    expect(state.engaged('b')).toBe(0);
    // The freed slot is reused without the old references coming back.
    state.record('z', ['y'], 1);
    expect(state.neighbours('a')).toEqual([]);
  });

  it("the writers' rule (each interaction paired with the user's window most recent other posts) equals the replay", () => {
    const events = plantedEvents(3).slice(0, 3000);
    const replayed = replayCoEngagement(events, { window: 5 });
    const live = new CoEngagement({ window: 5 });
    const history = new Map<string, string[]>();
    for (const { userId, postId } of events) {
      const newestFirst = history.get(userId) ?? [];
      live.apply({ postId, withPostIds: recentOtherPosts(newestFirst, postId, 5), weight: 1 });
      history.set(userId, [postId, ...newestFirst]);
    }
    for (const id of replayed.postIds()) expect(live.neighbours(id)).toEqual(replayed.neighbours(id));
  });

  it('rebuilt without a user, nothing of their contribution remains', () => {
    const events = plantedEvents(4).slice(0, 2000);
    // The erased user alone engaged with two posts nobody else did.
    const erased = [
      { userId: 'erased', postId: 'p1' },
      { userId: 'erased', postId: 'secret-a' },
      { userId: 'erased', postId: 'secret-b' },
    ];
    const withUser = replayCoEngagement([...events.slice(0, 1000), ...erased, ...events.slice(1000)]);
    expect(withUser.neighbours('secret-a').map((n) => n.id)).toContain('secret-b');
    const rebuilt = replayCoEngagement([...events.slice(0, 1000), ...events.slice(1000)]);
    expect(rebuilt.postIds()).not.toContain('secret-a');
    expect(rebuilt.neighbours('p1').map((n) => n.id)).not.toContain('secret-a');
    expect(rebuilt.engaged('p1')).toBe(withUser.engaged('p1') - 1);
  });

  it('replays users independently: another user between two of one user pairs nothing across them', () => {
    const state = new CoEngagement();
    const replay = new CoEngagementReplay(state);
    replay.add({ userId: 'a', postId: 'x' });
    replay.add({ userId: 'b', postId: 'y' });
    replay.add({ userId: 'a', postId: 'z' });
    expect(state.neighbours('z')).toEqual([{ id: 'x', count: 1 }]);
    expect(state.neighbours('y')).toEqual([]);
  });
});

/** Served neighbour lists drawn at random (`seed0`…: `perSeed` draws among `posts` posts, similarities from `sims`), and a reader serving them. */
function randomServed(
  seed: number,
  o: { seeds: number; perSeed: number; posts: number; sims: readonly number[] },
): { served: Map<string, [string, number][]>; reader: CoEngagementReader } {
  const random = createRandom(seed);
  const served = new Map<string, [string, number][]>();
  for (let s = 0; s < o.seeds; s++)
    served.set(
      `seed${s}`,
      Array.from(
        { length: o.perSeed },
        () => [`p${randomInt(random, o.posts)}`, o.sims[randomInt(random, o.sims.length)]!] as [string, number],
      ),
    );
  const reader: CoEngagementReader = {
    forEachNeighbour: () => {},
    engaged: () => 0,
    forEachServedNeighbour: (postId, visit) => {
      for (const [id, sim] of served.get(postId) ?? []) visit(id, sim);
    },
  };
  return { served, reader };
}

describe('collaborativeMatches past its limit', () => {
  it('keeps the strongest `limit` neighbours, ties by id, in the order a full sort gives', () => {
    // 60 seeds × 40 neighbours among 900 posts, similarities from a few values: many ties.
    const { served, reader } = randomServed(29, { seeds: 60, perSeed: 40, posts: 900, sims: [0.1, 0.2, 0.25, 0.5] });
    const seeds = [...served.keys()];
    // The sums by hand, then a full sort: strongest first, ties by id.
    const sums = new Map<string, number>();
    for (const seed of seeds) for (const [id, sim] of served.get(seed)!) sums.set(id, (sums.get(id) ?? 0) + sim);
    const sorted = [...sums].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    for (const limit of [1, 37, 200, sorted.length - 1]) {
      const matches = collaborativeMatches(reader, seeds, limit);
      expect([...matches.keys()]).toEqual(sorted.slice(0, limit).map(([id]) => id));
      const max = sorted[0]![1];
      for (const [id, match] of matches) expect(match.value).toBeCloseTo(sums.get(id)! / max, 12);
    }
    // Within the limit every neighbour is kept.
    expect(collaborativeMatches(reader, seeds, sorted.length).size).toBe(sorted.length);
  });

  it('names the seed contributing most (ties: the smaller id) and never matches the user’s own posts', () => {
    const { served, reader } = randomServed(31, { seeds: 40, perSeed: 30, posts: 300, sims: [0.1, 0.2, 0.5] });
    // The user's own posts: the seeds, and two posts others co-engaged with them.
    const own = ['p7', 'p11'];
    const seeds = [...served.keys()];
    const best = new Map<string, { seed: string; sim: number }>();
    for (const seed of seeds)
      for (const [id, sim] of served.get(seed)!) {
        const was = best.get(id);
        if (was === undefined || sim > was.sim || (sim === was.sim && seed < was.seed)) best.set(id, { seed, sim });
      }
    for (const id of own) expect(best.has(id)).toBe(true);
    const matches = collaborativeMatches(reader, [...seeds, ...own]);
    for (const id of own) expect(matches.has(id)).toBe(false);
    expect(matches.size).toBe([...best.keys()].filter((id) => !own.includes(id)).length);
    for (const [id, match] of matches) expect(match.seedId).toBe(best.get(id)!.seed);
  });
});
