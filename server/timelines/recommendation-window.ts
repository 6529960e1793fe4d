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
 * (through the cursor's `served` hashes) whatever was shown since (`shown`, told as each page
 * is sent) or is on the page. When the list has too few left, a new window opens at once with
 * the exclusions of that moment.
 */
import { LRUCache } from 'lru-cache';
import {
  MAX_RECOMMENDATION_DEPTH,
  servedHash,
  type Recommendation,
  type RecommendationService,
} from '../recommendations/recommendation.service.js';

/**
 * How long a window's ranking is reused (as long as the recommendation cache keeps a list); it
 * is also closed once it skips as many posts as its list holds (MAX_RECOMMENDATION_DEPTH).
 */
export const WINDOW_MS = 30_000;

/**
 * Windows kept (users reading pages within the same WINDOW_MS, least recently used dropped
 * first): each holds up to a shown memory's worth of ids; a user whose window was dropped
 * opens a new one, one ranking pass.
 */
export const WINDOWS_KEPT = 1_000;

interface Window {
  readonly rankedAtMs: number;
  /** The exclusions ranked with (the cache key: never changed while the window is open). */
  readonly excluded: readonly string[];
  /** Every id the window leaves out: the exclusions, then what was shown since it opened. */
  readonly skipped: Set<string>;
  /** The hashes (servedHash) of the ids shown since it opened: the cursor's `served`. */
  readonly served: number[];
}

export class RecommendationWindows {
  private readonly windows = new LRUCache<string, Window>({ max: WINDOWS_KEPT, ttl: WINDOW_MS });
  /** The first page of each window being ranked now, by user. */
  private readonly ranking = new Map<string, Promise<Recommendation[]>>();

  constructor(
    private readonly recommendations: Pick<RecommendationService, 'recommend'>,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Up to `limit` of the user's recommendations, best first, none of whose ids is on the
   * page (`pageIds`) or was shown (`shown`: what `shown` was told, and whatever else the caller remembers).
   */
  async recommend(userId: string, pageIds: readonly string[], shown: ReadonlySet<string>, limit: number): Promise<Recommendation[]> {
    const ranking = this.rankingDone(userId);
    if (ranking !== undefined) await ranking;
    const nowMs = this.now();
    const open = this.usable(userId, nowMs);
    if (open !== undefined) {
      const ranked = await this.take(userId, open, pageIds, limit, nowMs);
      if (ranked.length >= limit) return ranked;
      // Too few left; another page may have opened a new window meanwhile: take from that one.
      const opening = this.rankingDone(userId);
      if (opening !== undefined) await opening;
      const newer = this.usable(userId, nowMs);
      if (newer !== undefined && newer !== open) return this.take(userId, newer, pageIds, limit, nowMs);
    }
    // From the check above to here nothing awaits: one page opens the window, the others wait for it.
    const ranked = this.take(userId, this.open(userId, [...pageIds, ...shown], nowMs), [], limit, nowMs);
    this.ranking.set(userId, ranked);
    try {
      return await ranked;
    } finally {
      if (this.ranking.get(userId) === ranked) this.ranking.delete(userId);
    }
  }

  /**
   * Resolves once the list of the user's window being opened is ranked (undefined when none is,
   * so that the caller does not yield): the user's other pages wait for it, then take from the
   * cache, instead of each ranking it.
   */
  private rankingDone(userId: string): Promise<unknown> | undefined {
    return this.ranking.get(userId)?.catch(() => undefined);
  }

  /** The user's window, if it may still be used at `nowMs`. */
  private usable(userId: string, nowMs: number): Window | undefined {
    const open = this.windows.get(userId);
    const usable = open !== undefined && nowMs - open.rankedAtMs < WINDOW_MS && open.served.length < MAX_RECOMMENDATION_DEPTH;
    return usable ? open : undefined;
  }

  /** The user was shown these ids (a page was sent): the open window skips them from now on. */
  shown(userId: string, ids: readonly string[]): void {
    const window = this.windows.peek(userId);
    if (window === undefined) return;
    for (const id of ids) {
      if (window.skipped.has(id)) continue;
      window.skipped.add(id);
      window.served.push(servedHash(id));
    }
  }

  private open(userId: string, excluded: readonly string[], nowMs: number): Window {
    const skipped = new Set(excluded);
    const window = { rankedAtMs: nowMs, excluded: [...skipped], skipped, served: [] };
    this.windows.set(userId, window);
    return window;
  }

  private async take(userId: string, window: Window, pageIds: readonly string[], limit: number, nowMs: number): Promise<Recommendation[]> {
    const served = [...window.served];
    for (const id of pageIds) if (!window.skipped.has(id)) served.push(servedHash(id));
    return this.recommendations.recommend(
      userId,
      { limit, excludeIds: window.excluded, after: { rankedAtMs: window.rankedAtMs, served } },
      nowMs,
    );
  }
}
