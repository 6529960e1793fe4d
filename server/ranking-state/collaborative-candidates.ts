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
import { collaborativeMatches, type CandidateIndex, type CoEngagementReader, type RankablePost } from '../../src/ranking/index.js';
import type { StoredPost } from './ranking-state.events.js';

/** Most posts one request asks the database for. */
export const COLLABORATIVE_FETCH_LIMIT = 50;

/** Posts remembered as unavailable. */
const UNAVAILABLE_CAPACITY = 10_000;

export class CollaborativeCandidates {
  private readonly unavailable = new LruCache<string, true>(UNAVAILABLE_CAPACITY);

  constructor(private readonly state: { readonly index: CandidateIndex; readonly coEngagement: CoEngagementReader }) {}

  /**
   * The posts to fetch for a user with these recent posts (newest first): their co-engaged
   * posts best first, then the recent posts themselves, that are neither held nor known to be
   * unavailable, at most COLLABORATIVE_FETCH_LIMIT. Held candidates among them are kept warm.
   */
  missing(recentPosts: readonly string[]): string[] {
    if (recentPosts.length === 0) return [];
    const index = this.state.index;
    const matches = [...collaborativeMatches(this.state.coEngagement, recentPosts)].sort(
      (a, b) => b[1].value - a[1].value || (a[0] < b[0] ? -1 : 1),
    );
    const out: string[] = [];
    const held: RankablePost[] = [];
    const consider = (id: string): void => {
      const post = index.get(id);
      if (post !== undefined) held.push(post);
      else if (!this.unavailable.has(id) && out.length < COLLABORATIVE_FETCH_LIMIT) out.push(id);
    };
    for (const [id] of matches) consider(id);
    for (const id of recentPosts) consider(id);
    // Marks the held ones as asked for (a pool post stays a pool post).
    index.addCollaborative(held);
    return out;
  }

  /** Holds the fetched posts that may be recommended (public, unlisted); the rest of `asked` is remembered as unavailable. */
  add(asked: readonly string[], found: readonly StoredPost[]): void {
    const usable = found.filter((post) => post.visibility === 'public' || post.visibility === 'unlisted');
    const ids = new Set(usable.map((post) => post.id));
    for (const id of asked) if (!ids.has(id)) this.unavailable.set(id, true);
    this.state.index.addCollaborative(usable);
  }
}
