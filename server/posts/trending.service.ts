/**
 * Trending posts (the formula is `computeTrendingPosts` in src/ranking/trending.ts: distinct
 * engagers grouped by instance, decayed with age, under the source shares), recomputed by the
 * trending agent and served from a snapshot so that a read is a slice of an array. Who engaged
 * is the interactions feature's to say (`postEngagerGroups`, handed in by server/features.ts),
 * never a post's stored counters, which an instance's page could once claim.
 */
import type { Kysely } from 'kysely';
import {
  computeTrendingPosts,
  DEFAULT_SOURCE_SHARES,
  distinctEngagement,
  TRENDING_WINDOW_HOURS,
  type EngagerGroup,
  type SourceShares,
} from '../../src/ranking/index.js';
import type { Database } from '../platform/db/database.js';
import { trendablePostRows } from './post.repository.js';

/** The distinct engagers, per post and instance, of the posts created since `sinceMs`. */
export type EngagerSource = (sinceMs: number) => Promise<readonly (EngagerGroup & { readonly postId: string })[]>;

/** The snapshot keeps this many posts. */
export const TRENDING_SNAPSHOT_SIZE = 400;
/** A snapshot older than this is recomputed on read (when the agent is not running). */
const MAX_SNAPSHOT_AGE_MS = 5 * 60_000;

export interface TrendingSnapshot {
  computedAtMs: number;
  posts: { id: string; score: number }[];
}

/** One page of the snapshot by position (Mastodon's trends page by `offset`), and how many posts it holds. */
export function trendingPage(snapshot: TrendingSnapshot, offset: number, limit: number): { ids: string[]; total: number } {
  return { ids: snapshot.posts.slice(offset, offset + limit).map((p) => p.id), total: snapshot.posts.length };
}

export class TrendingService {
  private snapshot: TrendingSnapshot | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly engagers: EngagerSource,
    private readonly shares: SourceShares = DEFAULT_SOURCE_SHARES,
  ) {}

  /** Recomputes the snapshot. */
  async refresh(nowMs = Date.now()): Promise<TrendingSnapshot> {
    const sinceMs = nowMs - TRENDING_WINDOW_HOURS * 3_600_000;
    const groups = new Map<string, EngagerGroup[]>();
    for (const group of await this.engagers(sinceMs)) {
      const list = groups.get(group.postId);
      if (list === undefined) groups.set(group.postId, [group]);
      else list.push(group);
    }
    const rows = await trendablePostRows(this.db, sinceMs);
    const candidates = rows.flatMap((row) => {
      const engaged = groups.get(row.id);
      if (engaged === undefined) return [];
      const engagement = distinctEngagement(engaged);
      return [{ id: row.id, createdAtMs: row.created_at_ms, engagement, sourceInstance: row.source_instance, accountId: row.account_id }];
    });
    this.snapshot = { computedAtMs: nowMs, posts: computeTrendingPosts(candidates, nowMs, TRENDING_SNAPSHOT_SIZE, this.shares) };
    return this.snapshot;
  }

  /** The current snapshot, recomputed when missing or stale. */
  async current(nowMs = Date.now()): Promise<TrendingSnapshot> {
    if (this.snapshot === undefined || nowMs - this.snapshot.computedAtMs > MAX_SNAPSHOT_AGE_MS) return this.refresh(nowMs);
    return this.snapshot;
  }

  /** Forgets deleted posts without waiting for the next refresh. */
  forget(ids: readonly string[]): void {
    if (this.snapshot === undefined) return;
    const gone = new Set(ids);
    this.snapshot = { ...this.snapshot, posts: this.snapshot.posts.filter((p) => !gone.has(p.id)) };
  }
}
