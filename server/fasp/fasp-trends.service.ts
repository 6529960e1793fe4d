/**
 * The trends capability's content: the trending service's snapshot (src/ranking/trending.ts:
 * distinct engagers grouped by instance, decayed with age, under the source shares; original
 * public non-sensitive posts of its window), narrowed to posts created within the last
 * `withinLastHours` (the snapshot's window, TRENDING_WINDOW_HOURS, bounds it), to the
 * requested language, and to posts whose authors consent to be shared with other servers: the
 * timelines' storage rule (public, `discoverable` not false, no `#nobot`/`#noindex`) and, for
 * sharing beyond this service, FEP-5feb `indexable` true.
 */
import { languageMatches, trendRank } from '../../src/fasp/index.js';
import type { Status } from '../../src/schemas/post.schema.js';
import type { TrendingSnapshot } from '../posts/trending.service.js';
import { mayStoreStatus } from '../timelines/timelines.service.js';

export interface TrendsQuery {
  readonly withinLastHours: number;
  readonly maxCount: number;
  readonly language?: string | undefined;
}

export interface FaspTrendSources {
  /** The trending snapshot (TrendingService.current). */
  readonly snapshot: (nowMs: number) => Promise<TrendingSnapshot>;
  /** Stored posts by id (PostService.statusesByIds). */
  readonly statuses: (ids: readonly string[]) => Promise<Map<string, Status>>;
}

/** Whether the post's authors let it be shared with another server's trends. */
export function sharable(status: Status): boolean {
  const json = status as unknown as Record<string, unknown>;
  return mayStoreStatus(json) && status.sensitive !== true && status.reblog == null && status.account.indexable === true;
}

export class FaspTrendsService {
  constructor(private readonly sources: FaspTrendSources) {}

  /** `{uri, rank}` of the trending posts the query asks for, rank descending. */
  async content(query: TrendsQuery, nowMs = Date.now()): Promise<{ uri: string; rank: number }[]> {
    const snapshot = await this.sources.snapshot(nowMs);
    const sinceMs = nowMs - query.withinLastHours * 3_600_000;
    const statuses = await this.sources.statuses(snapshot.posts.map((p) => p.id));
    const content: { uri: string; rank: number }[] = [];
    for (const post of snapshot.posts) {
      if (content.length >= query.maxCount) break;
      const status = statuses.get(post.id);
      if (status === undefined || Date.parse(status.created_at) < sinceMs) continue;
      if (query.language !== undefined && !languageMatches(query.language, status.language)) continue;
      if (!sharable(status)) continue;
      content.push({ uri: status.uri, rank: trendRank(post.score) });
    }
    // The snapshot is by score, but pages under the source shares may interleave: ranks descend.
    return content.sort((a, b) => b.rank - a.rank);
  }
}
