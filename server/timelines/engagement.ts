/**
 * A user's engagement rate with injected recommendations: of the recommendations this
 * process injected into their timelines (the last SERVED_PER_USER), the share they
 * interacted with (favourite, reblog, bookmark, ... any live interaction on that post).
 * Unknown (undefined) until MIN_SERVED recommendations were served, so a handful of
 * lucky likes does not move a user to the higher ratio. In memory: a restart starts
 * every user at "unknown" (the default ratio) again.
 */
import { LRUCache } from 'lru-cache';

export const MIN_SERVED = 20;
export const SERVED_PER_USER = 500;

export interface InteractedPosts {
  interactedPostIds(userId: string): Promise<string[]>;
}

export class RecommendationEngagement {
  private readonly served = new LRUCache<string, string[]>({ max: 10_000 });
  private readonly rates = new LRUCache<string, number>({ max: 10_000, ttl: 60_000 });

  constructor(
    private readonly interactions: InteractedPosts,
    private readonly minServed = MIN_SERVED,
  ) {}

  /** Recommendations injected into a page the user was sent. */
  noteServed(userId: string, postIds: readonly string[]): void {
    if (postIds.length === 0) return;
    const list = [...(this.served.get(userId) ?? []), ...postIds];
    this.served.set(userId, list.length > SERVED_PER_USER ? list.slice(list.length - SERVED_PER_USER) : list);
  }

  /** Interactions per served recommendation in [0, 1]; undefined until enough were served. */
  async rate(userId: string): Promise<number | undefined> {
    const served = this.served.get(userId);
    if (served === undefined || served.length < this.minServed) return undefined;
    const cached = this.rates.get(userId);
    if (cached !== undefined) return cached;
    const interacted = new Set(await this.interactions.interactedPostIds(userId));
    const unique = [...new Set(served)];
    const rate = unique.filter((id) => interacted.has(id)).length / unique.length;
    this.rates.set(userId, rate);
    return rate;
  }
}
