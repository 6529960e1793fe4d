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
  const raw = new Map<string, { sum: number; seedId: string; seedSim: number }>();
  const own = new Set(recentPostIds);
  const seeds = recentPostIds.length > MAX_RECENT_POSTS ? recentPostIds.slice(0, MAX_RECENT_POSTS) : recentPostIds;
  for (const seedId of seeds) {
    state.forEachServedNeighbour(seedId, (id, sim) => {
      if (own.has(id)) return;
      const entry = raw.get(id);
      if (entry === undefined) raw.set(id, { sum: sim, seedId, seedSim: sim });
      else {
        entry.sum += sim;
        if (sim > entry.seedSim || (sim === entry.seedSim && seedId < entry.seedId)) [entry.seedId, entry.seedSim] = [seedId, sim];
      }
    });
  }
  let entries = [...raw];
  if (entries.length > limit) {
    // The `limit` strongest, then by id (as a full sort's first `limit`), in linear time: a
    // user with 100 seeds reaches thousands of neighbours, and a full sort cost more than
    // collecting them (bench/README.md, "A feed's recency at its pace", Cost).
    const all = entries;
    const scores = Float64Array.from(all, ([, e]) => e.sum);
    const picked = selectTopK(
      { scores, createdAt: new Float64Array(all.length), n: all.length, tieBreak: (a, b) => (all[a]![0] < all[b]![0] ? -1 : 1) },
      limit,
    );
    entries = picked.map((i) => all[i]!);
  }
  let max = 0;
  for (const [, e] of entries) if (e.sum > max) max = e.sum;
  const out = new Map<string, CollaborativeMatch>();
  if (max <= 0) return out;
  for (const [id, e] of entries) out.set(id, { value: e.sum / max, seedId: e.seedId });
  return out;
}
