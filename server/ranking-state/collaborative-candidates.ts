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
import { collaborativeFetch, type CandidateIndex, type CollaborativeMatch } from '../../src/ranking/index.js';
import type { StoredPost } from './ranking-state.events.js';

/** Posts remembered as unavailable. */
const UNAVAILABLE_CAPACITY = 10_000;

export class CollaborativeCandidates {
  private readonly unavailable = new LruCache<string, true>(UNAVAILABLE_CAPACITY);

  constructor(private readonly state: { readonly index: CandidateIndex }) {}

  /**
   * The posts to fetch for a user with these recent posts and their co-engaged posts
   * (`collaborativeMatches`), by the rule `collaborativeFetch` gives (neither held nor known to
   * be unavailable). Collaborative candidates among the matches are kept warm.
   */
  missing(recentPosts: readonly string[], matches: ReadonlyMap<string, CollaborativeMatch>): string[] {
    const { absent, warm } = collaborativeFetch(this.state.index, recentPosts, matches, (id) => this.unavailable.has(id));
    this.state.index.addCollaborative(warm);
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
