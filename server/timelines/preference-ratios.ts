/**
 * Each user's `recommendation_ratio` preference as the timelines read it: once per user while
 * their signals are unchanged, instead of a SELECT on every page. The ranking state's user
 * version is the invalidation (RankingState.userVersion): every preference write announces
 * `userSignalsChanged` after its commit (so do interactions and feedback, which only cost a
 * re-read), and an erasure or a reload moves it too. The version is taken before the read, so
 * a write that lands during the read leaves an entry that no longer matches. Bounded: least
 * recently reading users are dropped first.
 */
import { LRUCache } from 'lru-cache';

/** Users whose ratio is kept. */
export const RATIOS_KEPT = 10_000;

export interface RatioSource {
  recommendationRatio(userId: string): Promise<number | null>;
}

export interface UserVersions {
  /** Changes whenever something the state knows about the user changed. */
  userVersion(userId: string): string;
}

export class PreferenceRatios implements RatioSource {
  private readonly ratios = new LRUCache<string, { version: string; ratio: number | null }>({ max: RATIOS_KEPT });

  constructor(
    private readonly source: RatioSource,
    private readonly versions: UserVersions,
  ) {}

  /** The user's preferred ratio, null for none. */
  async recommendationRatio(userId: string): Promise<number | null> {
    const version = this.versions.userVersion(userId);
    const kept = this.ratios.get(userId);
    if (kept !== undefined && kept.version === version) return kept.ratio;
    const ratio = await this.source.recommendationRatio(userId);
    this.ratios.set(userId, { version, ratio });
    return ratio;
  }
}
