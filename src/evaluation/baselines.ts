/**
 * Simple baselines over the catalogue as it stands at the user's instant (EvalState); each
 * leaves out what the user engaged with already. A post's engagements count its positive
 * interactions (favourite, reblog, bookmark: every positive counts as a favourite, as in a
 * replay through the API).
 * - popularity: engagements so far;
 * - recent_6h: engagements in the 6 hours before now;
 * - hot: engagements / (age_hours + 2)^1.8;
 * - newest: creation time;
 * - item_knn: Σ over the user's items j of cosine(i, j) on the training user–item matrix,
 *   each j contributing only to its 50 nearest items;
 * - ease: Steck's EASE (B = I − P·diag(1/diag P), P = (XᵀX + λI)⁻¹, diag B = 0) on the
 *   training matrix over its most engaged items, at most `easeMaxItems` of them so that
 *   memory (16·n² bytes) and time (∝ n³) stay bounded.
 * The two models are fitted once, at the cutoff. Ties go to the newer post, then the smaller id.
 */
import { hotScore } from '../ranking/features.js';
import { invertSpd } from '../ranking/spd-inverse.js';
import type { TestUser } from './dataset.js';
import type { EvalState } from './eval-context.js';
import type { Ranker } from './rankers.js';

export const BASELINE_NAMES = ['popularity', 'recent_6h', 'hot', 'newest', 'item_knn', 'ease'] as const;
export type BaselineName = (typeof BASELINE_NAMES)[number];

export interface BaselineOptions {
  /** EASE's item bound (default 1,000). */
  readonly easeMaxItems: number;
  /** EASE's L2 regularisation λ (default 100). */
  readonly easeLambda: number;
  /** Neighbours per item for item_knn (default 50). */
  readonly knnNeighbours: number;
}

export const DEFAULT_BASELINE_OPTIONS: BaselineOptions = { easeMaxItems: 1000, easeLambda: 100, knnNeighbours: 50 };

/** The named baselines over an evaluation state. */
export function baselines(state: EvalState, names: readonly BaselineName[], options: Partial<BaselineOptions> = {}): Ranker[] {
  const o = { ...DEFAULT_BASELINE_OPTIONS, ...options };
  return names.map((name) => baseline(state, name, o));
}

function baseline(state: EvalState, name: BaselineName, o: BaselineOptions): Ranker {
  switch (name) {
    case 'popularity':
      return counted(state, name, (i) => state.engagements[i] as number);
    case 'recent_6h':
      return counted(state, name, (i) => state.recent[i] as number);
    case 'hot':
      return counted(state, name, (i) =>
        hotScore(state.engagements[i] as number, state.now - (state.catalogue[i] as { createdAtMs: number }).createdAtMs),
      );
    case 'newest':
      return { name, kind: 'baseline', personal: false, rank: (user, k) => newest(state, user, k) };
    case 'item_knn':
      return itemKnn(state, o.knnNeighbours);
    case 'ease':
      return ease(state, o.easeMaxItems, o.easeLambda);
  }
}

/** Positions by descending score, ties to the newer post then the smaller id (the catalogue's order, reversed). */
function sortByScore(positions: number[], score: (i: number) => number): number[] {
  const scores = new Map(positions.map((i) => [i, score(i)]));
  return positions.sort((a, b) => (scores.get(b) as number) - (scores.get(a) as number) || b - a);
}

/** The newest existing posts the user has not engaged with. */
function newest(state: EvalState, user: TestUser, k: number, skip: ReadonlySet<number> = new Set()): string[] {
  const seen = state.seen.get(user.userId);
  const out: string[] = [];
  for (let i = state.catalogue.length - 1; i >= 0 && out.length < k; i--) {
    if (state.exists(i) && seen?.has(i) !== true && !skip.has(i)) out.push(state.catalogue[i]!.id);
  }
  return out;
}

/** A counter-based baseline: the engaged posts by score, then (rarely needed) the newest. */
function counted(state: EvalState, name: BaselineName, score: (i: number) => number): Ranker {
  return {
    name,
    kind: 'baseline',
    personal: false,
    rank(user, k) {
      const seen = state.seen.get(user.userId);
      const top = topK(state.engaged, k, (i) => (seen?.has(i) === true || !state.exists(i) ? 0 : score(i)));
      const ids = top.map((i) => state.catalogue[i]!.id);
      return ids.length >= k ? ids : [...ids, ...newest(state, user, k - ids.length, new Set(top))];
    },
  };
}

/** The (at most) k positions of highest positive score, best first (ties: the higher position, i.e. the newer post). */
function topK(positions: readonly number[], k: number, score: (i: number) => number): number[] {
  const best: number[] = [];
  const scores: number[] = [];
  for (const i of positions) {
    const s = score(i);
    if (!(s > 0)) continue;
    if (best.length === k && !(s > scores[k - 1]! || (s === scores[k - 1]! && i > best[k - 1]!))) continue;
    let at = best.length === k ? k - 1 : best.length;
    while (at > 0 && (s > scores[at - 1]! || (s === scores[at - 1]! && i > best[at - 1]!))) {
      if (at < k) {
        best[at] = best[at - 1]!;
        scores[at] = scores[at - 1]!;
      }
      at -= 1;
    }
    best[at] = i;
    scores[at] = s;
  }
  return best.slice(0, k);
}

/** Each training user's and each item's engagements, as user numbers and catalogue positions. */
function matrix(state: EvalState): { itemsOf: number[][]; usersOf: number[][] } {
  const itemsOf: number[][] = [];
  const usersOf: number[][] = state.catalogue.map(() => []);
  for (const items of state.seen.values()) {
    const u = itemsOf.length;
    const list = [...items];
    itemsOf.push(list);
    for (const i of list) usersOf[i]!.push(u);
  }
  return { itemsOf, usersOf };
}

function itemKnn(state: EvalState, neighbours: number): Ranker {
  const { itemsOf, usersOf } = matrix(state);
  const cache = new Map<number, { items: Int32Array; sims: Float64Array }>();
  const co = new Float64Array(state.catalogue.length);
  const touched: number[] = [];
  const neighboursOf = (j: number): { items: Int32Array; sims: Float64Array } => {
    let hit = cache.get(j);
    if (hit !== undefined) return hit;
    for (const u of usersOf[j]!) {
      for (const i of itemsOf[u]!) {
        if (i === j) continue;
        if (co[i] === 0) touched.push(i);
        co[i] = (co[i] as number) + 1;
      }
    }
    const nj = usersOf[j]!.length;
    const scored = touched.map((i) => [i, (co[i] as number) / Math.sqrt(nj * usersOf[i]!.length)] as const);
    for (const i of touched) co[i] = 0;
    touched.length = 0;
    scored.sort((a, b) => b[1] - a[1] || b[0] - a[0]);
    const top = scored.slice(0, neighbours);
    hit = { items: Int32Array.from(top, ([i]) => i), sims: Float64Array.from(top, ([, s]) => s) };
    cache.set(j, hit);
    return hit;
  };
  return {
    name: 'item_knn',
    kind: 'baseline',
    personal: true,
    rank(user, k) {
      const seen = state.seen.get(user.userId);
      if (seen === undefined) return [];
      const scores = new Map<number, number>();
      for (const j of seen) {
        const { items, sims } = neighboursOf(j);
        for (let x = 0; x < items.length; x++) {
          const i = items[x] as number;
          if (!seen.has(i)) scores.set(i, (scores.get(i) ?? 0) + (sims[x] as number));
        }
      }
      return sortByScore([...scores.keys()], (i) => scores.get(i) ?? 0)
        .slice(0, k)
        .map((i) => state.catalogue[i]!.id);
    },
  };
}

function ease(state: EvalState, maxItems: number, lambda: number): Ranker {
  const { itemsOf, usersOf } = matrix(state);
  const engaged = usersOf.flatMap((users, i) => (users.length > 0 ? [i] : []));
  const kept = sortByScore(engaged, (i) => usersOf[i]!.length).slice(0, Math.max(0, maxItems));
  const n = kept.length;
  const slot = new Map(kept.map((i, s) => [i, s]));
  const g = new Float64Array(n * n);
  for (const items of itemsOf) {
    const slots = items.flatMap((i) => {
      const s = slot.get(i);
      return s === undefined ? [] : [s];
    });
    for (const a of slots) for (const b of slots) g[a * n + b] = (g[a * n + b] as number) + 1;
  }
  for (let s = 0; s < n; s++) g[s * n + s] = (g[s * n + s] as number) + lambda;
  const p = invertSpd(g, n);
  return {
    name: 'ease',
    kind: 'baseline',
    personal: true,
    rank(user, k) {
      const seen = state.seen.get(user.userId);
      if (seen === undefined || n === 0) return [];
      const scores = new Float64Array(n);
      for (const i of seen) {
        const a = slot.get(i);
        if (a === undefined) continue;
        // B[a][b] = −P[a][b] / P[b][b] for b ≠ a.
        for (let b = 0; b < n; b++) if (b !== a) scores[b] = (scores[b] as number) - (p[a * n + b] as number) / (p[b * n + b] as number);
      }
      const candidates = kept.filter((i) => !seen.has(i));
      return sortByScore(candidates, (i) => scores[slot.get(i) as number] as number)
        .slice(0, k)
        .map((i) => state.catalogue[i]!.id);
    },
  };
}
