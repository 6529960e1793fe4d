/**
 * Collaborative candidates: posts co-engaged with what a user engaged with recently that the
 * candidate pool does not hold (older than its newest 2,000, less engaging than its 500),
 * fetched for the rankings that weigh the collaborative feature and held beside the pool
 * (CandidateIndex.addCollaborative, bounded by `maxCollaborative`). The user's own recent
 * posts come too when missing: the reason names them ("…liked @ana's post about #rust").
 * Posts that cannot be candidates (gone, not public) are remembered, so they are not asked
 * for again and again.
 */
import { LruCache } from '../../src/lru-cache.js';
import type { CandidateIndex, CollaborativeMatch, RankablePost } from '../../src/ranking/index.js';
import type { StoredPost } from './ranking-state.events.js';

/** Most posts one request asks the database for. */
export const COLLABORATIVE_FETCH_LIMIT = 50;

/** Posts remembered as unavailable. */
const UNAVAILABLE_CAPACITY = 10_000;

export class CollaborativeCandidates {
  private readonly unavailable = new LruCache<string, true>(UNAVAILABLE_CAPACITY);

  constructor(private readonly state: { readonly index: CandidateIndex }) {}

  /**
   * The posts to fetch for a user with these recent posts and their co-engaged posts
   * (`collaborativeMatches`): the co-engaged ones best first, then the recent posts themselves,
   * that are neither held nor known to be unavailable, at most COLLABORATIVE_FETCH_LIMIT.
   * Collaborative candidates among them are kept warm.
   */
  missing(recentPosts: readonly string[], matches: ReadonlyMap<string, CollaborativeMatch>): string[] {
    const index = this.state.index;
    const absent: string[] = [];
    const warm: RankablePost[] = [];
    for (const id of matches.keys()) {
      if (!index.has(id)) {
        if (!this.unavailable.has(id)) absent.push(id);
      } else if (index.isCollaborative(id)) warm.push(index.get(id)!);
    }
    if (absent.length > COLLABORATIVE_FETCH_LIMIT) {
      absent.sort((a, b) => matches.get(b)!.value - matches.get(a)!.value || (a < b ? -1 : 1));
      absent.length = COLLABORATIVE_FETCH_LIMIT;
    }
    for (const id of recentPosts) {
      if (absent.length >= COLLABORATIVE_FETCH_LIMIT) break;
      if (!index.has(id) && !this.unavailable.has(id)) absent.push(id);
    }
    index.addCollaborative(warm);
    return absent;
  }

  /** Holds the fetched posts that may be recommended (public, unlisted); the rest of `asked` is remembered as unavailable. */
  add(asked: readonly string[], found: readonly StoredPost[]): void {
    const usable = found.filter((post) => post.visibility === 'public' || post.visibility === 'unlisted');
    const ids = new Set(usable.map((post) => post.id));
    for (const id of asked) if (!ids.has(id)) this.unavailable.set(id, true);
    this.state.index.addCollaborative(usable);
  }
}
