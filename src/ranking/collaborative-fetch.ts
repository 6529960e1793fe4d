/**
 * Collaborative candidates: the rule by which a ranking that weighs the collaborative feature
 * asks for the co-engaged posts the candidate pool does not hold — the server reads them from
 * its database (server/ranking-state/collaborative-candidates.ts), `recsvc eval` and the fit
 * from the replayed data (src/evaluation/eval-context.ts).
 */
import type { CandidateIndex } from './candidate-index.js';
import type { CollaborativeMatch } from './collaborative.js';
import type { RankablePost } from './ranking.types.js';

/** Most posts outside the pool one ranking asks for (the server reads them from its database). */
export const COLLABORATIVE_FETCH_LIMIT = 50;

/** The collaborative candidates a ranking asks for (`collaborativeFetch`). */
export interface CollaborativeFetch {
  /** Posts to fetch: the strongest co-engaged posts the index does not hold, then the user's own recent ones, at most COLLABORATIVE_FETCH_LIMIT. */
  readonly absent: string[];
  /** Co-engaged posts already held as collaborative candidates: kept warm (`CandidateIndex.addCollaborative`). */
  readonly warm: RankablePost[];
}

/**
 * What one ranking that weighs the collaborative feature asks for beyond the pool: its
 * co-engaged posts the index holds neither in the pool nor as collaborative candidates, the
 * strongest first (ties by id), then the user's recent posts themselves when missing (the
 * reason names them), skipping those `unavailable` says cannot be candidates. The server
 * reads them from its database; `recsvc eval` and the fit from the replayed data — one rule for both.
 */
export function collaborativeFetch(
  index: CandidateIndex,
  recentPosts: readonly string[],
  matches: ReadonlyMap<string, CollaborativeMatch>,
  unavailable: (postId: string) => boolean,
): CollaborativeFetch {
  const absent: string[] = [];
  const warm: RankablePost[] = [];
  for (const id of matches.keys()) {
    if (!index.has(id)) {
      if (!unavailable(id)) absent.push(id);
    } else if (index.isCollaborative(id)) warm.push(index.get(id)!);
  }
  if (absent.length > COLLABORATIVE_FETCH_LIMIT) {
    absent.sort((a, b) => matches.get(b)!.value - matches.get(a)!.value || (a < b ? -1 : 1));
    absent.length = COLLABORATIVE_FETCH_LIMIT;
  }
  for (const id of recentPosts) {
    if (absent.length >= COLLABORATIVE_FETCH_LIMIT) break;
    if (!index.has(id) && !unavailable(id)) absent.push(id);
  }
  return { absent, warm };
}
