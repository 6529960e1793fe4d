/**
 * The recommendations a user's timeline pages draw from: ranked once, then reused by every
 * page until used up or WINDOW_MS old, instead of a ranking pass per page.
 *
 * A page must leave out what the user was recently shown and what is on the page itself, and
 * that set changes with every page. Passing it as `excludeIds` would make every page a new
 * ranked list (the recommendation cache is keyed by its filters). So a window ranks once
 * with the exclusions known when it opens (a snapshot: the cache key stays the same for the
 * window's life), at a fixed instant, `MAX_RECOMMENDATION_DEPTH` deep (the paged list of
 * RecommendationService); each page then takes the next posts of that cached list, skipping
 * (through the cursor's `served` hashes) whatever was shown or put on a page since. When the
 * list has too few left, a new window opens at once with the exclusions of that moment.
 */
import { LRUCache } from 'lru-cache';
import { servedHash, type Recommendation, type RecommendationService } from '../recommendations/recommendation.service.js';
import { SHOWN_MEMORY_USERS } from './shown-memory.js';

/** How long a window's ranking is reused (as long as the recommendation cache keeps a list). */
export const WINDOW_MS = 30_000;

interface Window {
  readonly rankedAtMs: number;
  /** The exclusions ranked with (the cache key: never changed while the window is open). */
  readonly excluded: readonly string[];
  readonly excludedSet: ReadonlySet<string>;
}

export class RecommendationWindows {
  private readonly windows = new LRUCache<string, Window>({ max: SHOWN_MEMORY_USERS, ttl: WINDOW_MS });

  constructor(
    private readonly recommendations: Pick<RecommendationService, 'recommend'>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Up to `limit` of the user's recommendations, best first, none of whose ids is in `skip`. */
  async recommend(userId: string, skip: readonly string[], limit: number): Promise<Recommendation[]> {
    const nowMs = this.now();
    const open = this.windows.get(userId);
    if (open !== undefined && nowMs - open.rankedAtMs < WINDOW_MS) {
      const ranked = await this.take(userId, open, skip, limit, nowMs);
      if (ranked.length >= limit) return ranked;
    }
    return this.take(userId, this.open(userId, skip, nowMs), skip, limit, nowMs);
  }

  private open(userId: string, skip: readonly string[], nowMs: number): Window {
    const excluded = [...new Set(skip)];
    const window = { rankedAtMs: nowMs, excluded, excludedSet: new Set(excluded) };
    this.windows.set(userId, window);
    return window;
  }

  private async take(userId: string, window: Window, skip: readonly string[], limit: number, nowMs: number): Promise<Recommendation[]> {
    const served = skip.filter((id) => !window.excludedSet.has(id)).map(servedHash);
    return this.recommendations.recommend(
      userId,
      { limit, excludeIds: window.excluded, after: { rankedAtMs: window.rankedAtMs, served } },
      nowMs,
    );
  }
}
