import { describe, expect, it } from 'vitest';
import { createRandom } from '../../../src/random.js';
import { CoEngagement } from '../../../src/ranking/co-engagement.js';
import { collaborativeMatches } from '../../../src/ranking/collaborative.js';
import {
  fitItemModel,
  ItemModel,
  itemModelFromBytes,
  itemModelFromJson,
  itemModelToBytes,
  itemModelToJson,
  MODEL_BLEND,
  modelScale,
  ModelledCoEngagement,
  type ItemModelPair,
} from '../../../src/ranking/item-model.js';

const pairs = (spec: Record<string, string[]>): ItemModelPair[] =>
  Object.entries(spec).flatMap(([userId, posts]) => posts.map((postId) => ({ userId, postId })));

const neighboursOf = (model: ItemModel, id: string): [string, number][] => {
  const out: [string, number][] = [];
  model.forEachNeighbour(id, (n, w) => out.push([n, w]));
  return out;
};

/** EASE by the book, independently: Gauss–Jordan inverse of XᵀX + λI, B = I − P·diag(1/diag P). */
function easeByTheBook(items: string[], data: ItemModelPair[], lambda: number): number[][] {
  const n = items.length;
  const at = new Map(items.map((id, i) => [id, i]));
  const byUser = new Map<string, Set<number>>();
  for (const { userId, postId } of data) {
    const i = at.get(postId);
    if (i === undefined) continue;
    if (!byUser.has(userId)) byUser.set(userId, new Set());
    byUser.get(userId)!.add(i);
  }
  const g = items.map((_, a) => items.map((__, b) => (a === b ? lambda : 0)));
  for (const set of byUser.values()) for (const a of set) for (const b of set) g[a]![b]! += 1;
  const m = g.map((row, i) => [...row, ...items.map((_, j) => (i === j ? 1 : 0))]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[pivot]![c]!)) pivot = r;
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    const d = m[c]![c]!;
    for (let j = 0; j < 2 * n; j++) m[c]![j]! /= d;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]!;
      for (let j = 0; j < 2 * n; j++) m[r]![j]! -= f * m[c]![j]!;
    }
  }
  const p = m.map((row) => row.slice(n));
  return items.map((_, a) => items.map((__, b) => (a === b ? 0 : -p[a]![b]! / p[b]![b]!)));
}

describe('the periodic item–item model (EASE)', () => {
  it('computes B by hand on two posts', () => {
    // u1, u2 engaged a and b, u3 only a: G = [[3, 2], [2, 2]] + I = [[4, 2], [2, 3]],
    // P = G⁻¹ = [[3, −2], [−2, 4]] / 8, B[a][b] = −P[a][b] / P[b][b] = 2/4, B[b][a] = 2/3.
    const fit = fitItemModel(pairs({ u1: ['a', 'b'], u2: ['b', 'a'], u3: ['a'] }), { lambda: 1, minPairs: 0 });
    const model = new ItemModel(fit.data);
    expect(fit.data.ids).toEqual(['a', 'b']);
    expect(neighboursOf(model, 'a')).toEqual([['b', expect.closeTo(0.5, 6) as number]]);
    expect(neighboursOf(model, 'b')).toEqual([['a', expect.closeTo(2 / 3, 6) as number]]);
    expect(fit).toMatchObject({ users: 3, pairs: 5, eligible: 2 });
    expect(model.maxWeight()).toBeCloseTo(2 / 3, 6);
  });

  it('keeps each row’s strongest positive weights of EASE computed by the book', () => {
    let seed = 7;
    const random = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const data: ItemModelPair[] = [];
    for (let u = 0; u < 60; u++) {
      const group = u % 3;
      for (let i = 0; i < 12; i++)
        if (random() < (Math.floor(i / 4) === group ? 0.7 : 0.05)) data.push({ userId: `u${u}`, postId: `p${i}` });
    }
    data.push(...data.slice(0, 10)); // Repeats count once.
    const k = 4;
    const fit = fitItemModel(data, { lambda: 5, neighbours: k, minPairs: 0, minUsers: 1 });
    const model = new ItemModel(fit.data);
    const items = [...fit.data.ids];
    expect(items).toHaveLength(12);
    const b = easeByTheBook(items, data, 5);
    for (const [a, id] of items.entries()) {
      const expected = items
        .map((other, j) => [other, b[a]![j]!] as [string, number])
        .filter(([other, w]) => other !== id && w > 0)
        .sort((x, y) => y[1] - x[1])
        .slice(0, k);
      const got = neighboursOf(model, id);
      expect(got.map(([n]) => n)).toEqual(expected.map(([n]) => n));
      got.forEach(([, w], x) => expect(w).toBeCloseTo(expected[x]![1], 5));
    }
    // The planted groups: a post's strongest neighbour is one of its own group.
    for (const id of items)
      expect(Math.floor(Number(neighboursOf(model, id)[0]![0].slice(1)) / 4)).toBe(Math.floor(Number(id.slice(1)) / 4));
  });

  it('fits the most engaged posts only, leaves out rare ones, and nothing below the minimum of data', () => {
    const data = pairs({ u1: ['a', 'b', 'c', 'd'], u2: ['a', 'b', 'c'], u3: ['a', 'b'], u4: ['a'] });
    expect(fitItemModel(data, { maxItems: 2, minPairs: 0, lambda: 1 }).data.ids).toEqual(['a', 'b']);
    // d has one user: below minUsers 2.
    expect(fitItemModel(data, { minPairs: 0, lambda: 1 }).data.ids).toEqual(['a', 'b', 'c']);
    const none = fitItemModel(data, { minPairs: 11 });
    expect(none.data.ids).toEqual([]);
    expect(new ItemModel(none.data).size).toBe(0);
    expect(fitItemModel(data, { minPairs: 10, lambda: 1 }).data.ids).toHaveLength(3);
  });

  it('reads back what it stores, and refuses anything else', () => {
    const data = fitItemModel(pairs({ u1: ['a', 'b', 'c'], u2: ['a', 'b'], u3: ['b', 'c'] }), { minPairs: 0, lambda: 1 }).data;
    const back = itemModelFromJson(itemModelToJson(data));
    expect(back.data).toEqual(data);
    expect(neighboursOf(back, 'b')).toEqual(neighboursOf(new ItemModel(data), 'b'));
    expect(() => itemModelFromJson('{"ids":[1],"offsets":[0,0],"neighbours":[],"weights":[]}')).toThrow(/ids/);
    expect(() => itemModelFromJson('{"ids":["a"],"offsets":[0,"x"],"neighbours":[],"weights":[]}')).toThrow(/numbers/);
  });

  it('stores its binary form and reads it back bit for bit, at any byte offset, and refuses anything else', () => {
    const data = fitItemModel(pairs({ u1: ['a', 'b', 'c'], u2: ['a', 'b'], u3: ['b', 'c', 'd'] }), { minPairs: 0, lambda: 1 }).data;
    const { cosine, ...easeOnly } = data;
    expect(cosine?.ids.length).toBe(4);
    for (const model of [data, easeOnly]) {
      const bytes = itemModelToBytes(model);
      expect(itemModelFromBytes(bytes).data).toEqual(model);
      // A driver's buffer may start anywhere in its memory block.
      const shifted = new Uint8Array(bytes.length + 3);
      shifted.set(bytes, 3);
      expect(itemModelFromBytes(shifted.subarray(3)).data).toEqual(model);
    }
    const bytes = itemModelToBytes(data);
    expect(() => itemModelFromBytes(new TextEncoder().encode(itemModelToJson(data)))).toThrow(/not a stored model/);
    expect(() => itemModelFromBytes(bytes.subarray(0, bytes.length - 4))).toThrow(/truncated/);
    expect(() => itemModelFromBytes(Uint8Array.of(...bytes, 0, 0, 0, 0))).toThrow(/trailing/);
    // A neighbour beyond the posts (the last weight's slot taken as the last neighbour's): refused by the model itself.
    const broken = Uint8Array.from(bytes);
    const view = new DataView(broken.buffer);
    const easeEntries = data.weights.length;
    const cosineEntries = cosine!.weights.length;
    const lastCosineNeighbour = broken.length - 4 * cosineEntries - 4;
    view.setUint32(lastCosineNeighbour, 99, true);
    expect(() => itemModelFromBytes(broken)).toThrow(/bad neighbour/);
    expect(easeEntries).toBeGreaterThan(0);
  });

  it('refuses inconsistent data', () => {
    const ok = fitItemModel(pairs({ u1: ['a', 'b'], u2: ['a', 'b'] }), { minPairs: 0, lambda: 1 }).data;
    expect(() => new ItemModel({ ...ok, offsets: new Uint32Array([0, 1]) })).toThrow(/offsets/);
    expect(() => new ItemModel({ ...ok, neighbours: Uint32Array.from([5, 0]) })).toThrow(/neighbour/);
    expect(() => new ItemModel({ ...ok, weights: new Float32Array(1) })).toThrow(/entries/);
  });
});

describe('the cosine lists beside EASE (item-to-item kNN)', () => {
  const cosineOf = (model: ItemModel, id: string): [string, number][] => {
    const out: [string, number][] = [];
    model.forEachCosineNeighbour(id, (n, w) => out.push([n, w]));
    return out;
  };

  it('gives each post its nearest by cosine over distinct users, as counted by brute force', () => {
    const random = createRandom(7);
    const data: ItemModelPair[] = [];
    for (let u = 0; u < 60; u++) {
      const n = 1 + Math.floor(random() * 12);
      // Duplicates on purpose: a pair counts once.
      for (let i = 0; i < n; i++) data.push({ userId: `u${u}`, postId: `p${Math.floor(random() * random() * 40)}` });
    }
    const k = 5;
    const model = new ItemModel(fitItemModel(data, { minPairs: 0, maxItems: 3, cosineNeighbours: k }).data);
    // By brute force: each post's set of users; cosine = |U(a) ∩ U(b)| / √(|U(a)|·|U(b)|).
    const usersOf = new Map<string, Set<string>>();
    for (const { userId, postId } of data) usersOf.set(postId, (usersOf.get(postId) ?? new Set()).add(userId));
    const order = [...usersOf.keys()].sort((a, b) => usersOf.get(b)!.size - usersOf.get(a)!.size || (a < b ? -1 : 1));
    expect(model.data.cosine?.ids).toEqual(order);
    for (const a of order) {
      const expected = order
        .filter((b) => b !== a)
        .map((b) => {
          const shared = [...usersOf.get(a)!].filter((u) => usersOf.get(b)!.has(u)).length;
          return [b, shared / Math.sqrt(usersOf.get(a)!.size * usersOf.get(b)!.size)] as [string, number];
        })
        .filter(([, c]) => c > 0)
        .sort((x, y) => y[1] - x[1] || order.indexOf(x[0]) - order.indexOf(y[0]))
        .slice(0, k);
      const got = cosineOf(model, a);
      expect(got.map(([b]) => b)).toEqual(expected.map(([b]) => b));
      got.forEach(([, c], i) => expect(c).toBeCloseTo(expected[i]![1], 6));
    }
    // EASE's lists are bounded apart: 3 posts.
    expect(model.size).toBe(3);
    expect(model.cosinePosts).toBe(order.length);
  });

  it('keeps posts of one user, bounds the posts, and holds none when turned off or below the minimum of data', () => {
    const data = pairs({ u1: ['a', 'b', 'c', 'd'], u2: ['a', 'b', 'c'], u3: ['a', 'b'], u4: ['a'] });
    const all = fitItemModel(data, { minPairs: 0, lambda: 1 }).data;
    // d has one user: not in EASE's lists, but in the cosine lists, and a neighbour of a, b and c.
    expect(all.ids).toEqual(['a', 'b', 'c']);
    expect(all.cosine?.ids).toEqual(['a', 'b', 'c', 'd']);
    expect(cosineOf(new ItemModel(all), 'd').map(([b]) => b)).toEqual(['c', 'b', 'a']);
    expect(fitItemModel(data, { minPairs: 0, cosineItems: 2 }).data.cosine?.ids).toEqual(['a', 'b']);
    expect(fitItemModel(data, { minPairs: 0, cosineItems: 0 }).data.cosine?.ids).toEqual([]);
    expect(fitItemModel(data, { minPairs: 11 }).data.cosine?.ids).toEqual([]);
  });

  it('stores and reads back the cosine lists; a model stored before them still loads', () => {
    const data = fitItemModel(pairs({ u1: ['a', 'b', 'c'], u2: ['a', 'b'], u3: ['b', 'c', 'd'] }), { minPairs: 0, lambda: 1 }).data;
    const back = itemModelFromJson(itemModelToJson(data));
    expect(back.data).toEqual(data);
    expect(cosineOf(back, 'd')).toEqual(cosineOf(new ItemModel(data), 'd'));
    const { cosine, ...easeOnly } = data;
    expect(cosine?.ids.length).toBe(4);
    const old = itemModelFromJson(itemModelToJson(easeOnly));
    expect(cosineOf(old, 'a')).toEqual([]);
    expect(neighboursOf(old, 'a')).toEqual(neighboursOf(new ItemModel(data), 'a'));
    expect(() => itemModelFromJson(itemModelToJson(data).replace('"cosine":{"ids":[', '"cosine":{"ids":[7,'))).toThrow(/item model/);
  });

  it('is served beside the state and EASE, each cosine as it is', () => {
    const model = new ItemModel(fitItemModel(pairs({ u1: ['a', 'b'], u2: ['b', 'a'], u3: ['a', 'c'] }), { lambda: 1, minPairs: 0 }).data);
    const reader = new ModelledCoEngagement(model, new CoEngagement({ window: 4 }));
    const served: [string, number][] = [];
    reader.forEachServedNeighbour('c', (n, s) => served.push([n, s]));
    // c has one user (u3), so no EASE row; its cosine neighbour a: 1 / √(1·3).
    expect(served).toEqual([['a', expect.closeTo(1 / Math.sqrt(3), 6) as number]]);
    expect(collaborativeMatches(reader, ['c']).get('a')).toEqual({ value: 1, seedId: 'c' });
  });
});

describe('ModelledCoEngagement', () => {
  // EASE alone here (no cosine lists): what each reads is checked apart.
  const model = new ItemModel(
    fitItemModel(pairs({ u1: ['a', 'b'], u2: ['b', 'a'], u3: ['a'] }), { lambda: 1, minPairs: 0, cosineItems: 0 }).data,
  );
  const live = new CoEngagement({ window: 4 });
  live.record('a', ['c'], 1);
  live.record('x', ['y'], 1);

  it('serves the state’s neighbours and, for a post the model holds, the model’s scaled to MODEL_BLEND', () => {
    const reader = new ModelledCoEngagement(model, live);
    expect(reader.scale).toBeCloseTo(MODEL_BLEND / (2 / 3), 6);
    const served = (id: string): [string, number][] => {
      const out: [string, number][] = [];
      reader.forEachServedNeighbour(id, (n, s) => out.push([n, s]));
      return out;
    };
    const liveOf = (id: string): [string, number][] => {
      const out: [string, number][] = [];
      live.forEachServedNeighbour(id, (n, s) => out.push([n, s]));
      return out;
    };
    expect(served('a')).toEqual([...liveOf('a'), ['b', expect.closeTo(0.5 * reader.scale, 6) as number]]);
    expect(served('b')).toEqual([['a', expect.closeTo(MODEL_BLEND, 6) as number]]);
    expect(served('x')).toEqual(liveOf('x'));
    expect(served('x')).toHaveLength(1);
    // Counts stay the state's.
    expect(reader.engaged('a')).toBe(live.engaged('a'));
    const counts: string[] = [];
    reader.forEachNeighbour('a', (n) => counts.push(n));
    expect(counts).toEqual(['c']);
  });

  it('lifts a model neighbour into the collaborative feature', () => {
    expect(collaborativeMatches(live, ['b']).size).toBe(0);
    const matches = collaborativeMatches(new ModelledCoEngagement(model, live), ['b']);
    expect(matches.get('a')).toEqual({ value: 1, seedId: 'b' });
    expect(
      modelScale(new ItemModel({ ids: [], offsets: new Uint32Array(1), neighbours: new Uint32Array(0), weights: new Float32Array(0) })),
    ).toBe(0);
  });
});
