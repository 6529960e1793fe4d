/**
 * The collaborative feature of one user: posts co-engaged with what the user engaged with
 * recently, scored item-to-item (co-engagement counts of ./co-engagement.ts).
 *
 * sim(p, q) = c(p, q) / √(n(p) · n(q)), with c the co-engagement count and n a post's own
 * engagement count (each at least c): a cosine over users, so a post engaged by everyone is
 * not everyone's neighbour. raw(q) = Σ over the user's recent posts p of sim(p, q), and the
 * feature is raw(q) / max raw over the user's neighbours, in [0, 1] like engagement's.
 */
import type { CoEngagementReader } from './co-engagement.js';

/**
 * The user's most recent engaged posts a profile keeps for the collaborative feature: like
 * item kNN, the feature sums over (nearly) the whole history; 20 lost a fifth of what it
 * recovers on a catalogue, where a user's taste is spread over months of ratings.
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
  for (const seedId of recentPostIds) {
    const nSeed = state.engaged(seedId);
    state.forEachNeighbour(seedId, (id, count, nNeighbour) => {
      if (own.has(id)) return;
      const sim = count / Math.sqrt(Math.max(nSeed, count) * Math.max(nNeighbour, count));
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
    entries.sort((a, b) => b[1].sum - a[1].sum || (a[0] < b[0] ? -1 : 1));
    entries = entries.slice(0, limit);
  }
  let max = 0;
  for (const [, e] of entries) if (e.sum > max) max = e.sum;
  const out = new Map<string, CollaborativeMatch>();
  if (max <= 0) return out;
  for (const [id, e] of entries) out.set(id, { value: e.sum / max, seedId: e.seedId });
  return out;
}
