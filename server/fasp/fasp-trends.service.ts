/**
 * The trends capability's content: the trending service's snapshot (src/ranking/trending.ts:
 * distinct engagers grouped by instance, decayed with age, under the source shares; original
 * public non-sensitive posts of its window), narrowed to posts created within the last
 * `withinLastHours` (the snapshot's window, TRENDING_WINDOW_HOURS, bounds it), to the
 * requested language, and to posts whose authors consent to be shared with other servers: the
 * timelines' storage rule (public, `discoverable` not false, no `#nobot`/`#noindex`) and, for
 * sharing beyond this service, FEP-5feb `indexable` true (as stored: src/mastodon/entities.ts
 * records an account that does not say as `discoverable !== false`).
 */
import { languageMatches, trendRank } from '../../src/fasp/index.js';
import type { Status } from '../../src/schemas/post.schema.js';
import type { TrendingSnapshot } from '../posts/trending.service.js';
import { mayStoreStatus } from '../posts/post.service.js';

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

/** A trending hashtag or link: its trend score summed over the posts that carry it, and its top posts. */
interface Aggregate {
  score: number;
  examples: string[];
}

/** Examples given with each hashtag or link (the specification's "a couple"). */
const EXAMPLES = 3;

export class FaspTrendsService {
  constructor(private readonly sources: FaspTrendSources) {}

  /** The snapshot's posts the query admits, highest score first, with their statuses. */
  private async admitted(query: TrendsQuery, nowMs: number): Promise<{ status: Status; score: number }[]> {
    const snapshot = await this.sources.snapshot(nowMs);
    const sinceMs = nowMs - query.withinLastHours * 3_600_000;
    const statuses = await this.sources.statuses(snapshot.posts.map((p) => p.id));
    const admitted: { status: Status; score: number }[] = [];
    for (const post of snapshot.posts) {
      const status = statuses.get(post.id);
      if (status === undefined || Date.parse(status.created_at) < sinceMs) continue;
      if (query.language !== undefined && !languageMatches(query.language, status.language)) continue;
      if (sharable(status)) admitted.push({ status, score: post.score });
    }
    return admitted;
  }

  /** `{uri, rank}` of the trending posts the query asks for, rank descending. */
  async content(query: TrendsQuery, nowMs = Date.now()): Promise<{ uri: string; rank: number }[]> {
    const content = (await this.admitted(query, nowMs))
      .slice(0, query.maxCount)
      .map((p) => ({ uri: p.status.uri, rank: trendRank(p.score) }));
    // The snapshot is by score, but pages under the source shares may interleave: ranks descend.
    return content.sort((a, b) => b.rank - a.rank);
  }

  /** Trending hashtags: the tags of the admitted posts, each scored by the sum of its posts' trend scores. */
  async hashtags(query: TrendsQuery, nowMs = Date.now()): Promise<{ name: string; rank: number; examples: string[] }[]> {
    const tags = aggregate(await this.admitted(query, nowMs), (status) => status.tags.map((tag) => tag.name.toLowerCase()));
    return tags.slice(0, query.maxCount).map(([name, a]) => ({ name: `#${name}`, rank: trendRank(a.score), examples: a.examples }));
  }

  /** Trending links: the preview-card URLs of the admitted posts, scored the same way. */
  async links(query: TrendsQuery, nowMs = Date.now()): Promise<{ url: string; rank: number; examples: string[] }[]> {
    const links = aggregate(await this.admitted(query, nowMs), (status) => {
      const card: Record<string, unknown> | null = status.card;
      const url = card?.url;
      return typeof url === 'string' && /^https?:\/\//i.test(url) ? [url] : [];
    });
    return links.slice(0, query.maxCount).map(([url, a]) => ({ url, rank: trendRank(a.score), examples: a.examples }));
  }
}

/** Each key's summed score and first examples (posts arrive highest score first), highest sum first. */
function aggregate(
  posts: readonly { status: Status; score: number }[],
  keys: (status: Status) => readonly string[],
): [string, Aggregate][] {
  const byKey = new Map<string, Aggregate>();
  for (const { status, score } of posts) {
    for (const key of new Set(keys(status))) {
      const entry = byKey.get(key) ?? { score: 0, examples: [] };
      entry.score += score;
      if (entry.examples.length < EXAMPLES) entry.examples.push(status.uri);
      byKey.set(key, entry);
    }
  }
  return [...byKey].sort((a, b) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : 1));
}
