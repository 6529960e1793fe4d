/**
 * The collaborative feature of one user: posts co-engaged with what the user engaged with
 * recently, scored item-to-item (co-engagement counts of ./co-engagement.ts).
 *
 * Each seed post p (the user's recent posts) serves its most similar neighbours q, at most
 * `servedPerPost` of them, with sim(p, q) = c(p, q) / (n(p)^α · n(q)^(1−α)) (c the
 * co-engagement count, n a post's own engagement count, α = SEED_DAMPING: a post engaged by
 * everyone is not everyone's neighbour, and a seed engaged by everyone says little of the
 * user). raw(q) = Σ over the user's recent posts p of sim(p, q), and the feature is
 * raw(q) / max raw over the user's neighbours, in [0, 1] like engagement's. The work per
 * request is bounded: at most MAX_RECENT_POSTS × servedPerPost (100 × 30) entries, and the
 * item model's neighbours of each seed.
 */
import type { CoEngagementReader } from './co-engagement.js';
import { selectTopK } from './top-k.js';

/**
 * The user's most recent engaged posts a profile keeps for the collaborative feature (its
 * seeds): 100, about a catalogue user's whole history, as EASE and item kNN read it. On the
 * synthetic catalogue (with the item model, no cap per author) the feature alone ranks
 * nDCG@20 0.129 / 0.130 / 0.136 / 0.126 (data seeds 1 / 2 / 3 / 5) against 0.126 / 0.127 /
 * 0.132 / 0.123 with 30, and the fitted default gains as much (bench/README.md, 2026-11-28
 * "seeds, caps and weights"). The cost is the first request's read of 100 rows instead of 30,
 * and at most 100 × (30 + 50) neighbour entries per request, only for rankings that weigh the
 * feature.
 */
export const MAX_RECENT_POSTS = 100;

/** One co-engaged post of a user. */
export interface CollaborativeMatch {
  /** The feature, in (0, 1]. */
  readonly value: number;
  /** The user's post contributing most (the reason names it). */
  readonly seedId: string;
}

/**
 * The user's co-engaged posts (their own recent posts left out), at most `limit`, the
 * strongest kept (ties by id, so the result is deterministic).
 */
export function collaborativeMatches(
  state: CoEngagementReader,
  recentPostIds: readonly string[],
  limit = 500,
): Map<string, CollaborativeMatch> {
  // A user with 100 seeds visits ~13,000 served neighbours (live, EASE and cosine lists), ~5,000
  // of them distinct: one map lookup per visit, into a position of flat arrays, and no object per
  // neighbour (an entry object per neighbour and a second lookup for the user's own posts were
  // most of a collaborative first request's cost: bench/README.md, "A collaborative first request").
  const slots = new Map<string, number>();
  for (const id of recentPostIds) slots.set(id, OWN_POST);
  const seeds = recentPostIds.length > MAX_RECENT_POSTS ? recentPostIds.slice(0, MAX_RECENT_POSTS) : recentPostIds;
  const ids: string[] = [];
  const sums: number[] = [];
  const seedSims: number[] = [];
  const seedOf: number[] = [];
  for (let s = 0; s < seeds.length; s++) {
    const seedId = seeds[s]!;
    state.forEachServedNeighbour(seedId, (id, sim) => {
      const slot = slots.get(id);
      if (slot === undefined) {
        slots.set(id, ids.length);
        ids.push(id);
        sums.push(sim);
        seedSims.push(sim);
        seedOf.push(s);
      } else if (slot !== OWN_POST) {
        sums[slot] = sums[slot]! + sim;
        const best = seedSims[slot]!;
        // The seed contributing most names the reason (ties: the smaller id).
        if (sim > best || (sim === best && seedId < seeds[seedOf[slot]!]!)) {
          seedSims[slot] = sim;
          seedOf[slot] = s;
        }
      }
    });
  }
  const n = ids.length;
  let kept: ArrayLike<number> | undefined;
  if (n > limit) {
    // The `limit` strongest, then by id (as a full sort's first `limit`), in linear time: a
    // user with 100 seeds reaches thousands of neighbours, and a full sort cost more than
    // collecting them (bench/README.md, "A feed's recency at its pace", Cost).
    kept = selectTopK({ scores: Float64Array.from(sums), createdAt: zeros(n), n, tieBreak: (a, b) => (ids[a]! < ids[b]! ? -1 : 1) }, limit);
  }
  const count = kept === undefined ? n : kept.length;
  let max = 0;
  for (let x = 0; x < count; x++) {
    const sum = sums[kept === undefined ? x : kept[x]!]!;
    if (sum > max) max = sum;
  }
  const out = new Map<string, CollaborativeMatch>();
  if (max <= 0) return out;
  for (let x = 0; x < count; x++) {
    const i = kept === undefined ? x : kept[x]!;
    out.set(ids[i]!, { value: sums[i]! / max, seedId: seeds[seedOf[i]!]! });
  }
  return out;
}

/** The slot of the user's own recent posts: never a match. */
const OWN_POST = -1;

let zeroTimes = new Float64Array(0);

/** A shared array of `n` zeros (creation times for the top-k, which only reads them). */
function zeros(n: number): Float64Array {
  if (zeroTimes.length < n) zeroTimes = new Float64Array(Math.max(n, 2 * zeroTimes.length));
  return zeroTimes;
}
