/**
 * Trending posts: engagement with time decay, recomputed by the trending agent and
 * served from a snapshot so that a read is a slice of an array.
 *
 * trend_score = (favourites + 2·reblogs + replies) · 2^(−age_hours / TRENDING_HALF_LIFE_HOURS),
 * over original public posts of the last TRENDING_WINDOW_HOURS.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { recentEngagementRows } from './post.repository.js';

/** A post's trend halves every 12 hours. */
export const TRENDING_HALF_LIFE_HOURS = 12;
/** Only posts of the last three days can trend. */
export const TRENDING_WINDOW_HOURS = 72;
/** The snapshot keeps this many posts (and tags). */
export const TRENDING_SNAPSHOT_SIZE = 400;
/** A snapshot older than this is recomputed on read (when the agent is not running). */
const MAX_SNAPSHOT_AGE_MS = 5 * 60_000;

export interface TrendingSnapshot {
  computedAtMs: number;
  posts: { id: string; score: number }[];
  tags: { tag: string; score: number; posts: number }[];
}

/** One page of the snapshot by position (Mastodon's trends page by `offset`), and how many posts it holds. */
export function trendingPage(snapshot: TrendingSnapshot, offset: number, limit: number): { ids: string[]; total: number } {
  return { ids: snapshot.posts.slice(offset, offset + limit).map((p) => p.id), total: snapshot.posts.length };
}

export class TrendingService {
  private snapshot: TrendingSnapshot | undefined;

  constructor(private readonly db: Kysely<Database>) {}

  /** Recomputes the snapshot. */
  async refresh(nowMs = Date.now()): Promise<TrendingSnapshot> {
    const rows = await recentEngagementRows(this.db, nowMs - TRENDING_WINDOW_HOURS * 3_600_000);
    const posts: { id: string; score: number }[] = [];
    const tags = new Map<string, { score: number; posts: number }>();
    for (const row of rows) {
      const ageHours = Math.max(0, nowMs - row.created_at_ms) / 3_600_000;
      const score = (row.favourites_count + 2 * row.reblogs_count + row.replies_count) * Math.pow(2, -ageHours / TRENDING_HALF_LIFE_HOURS);
      if (score <= 0) continue;
      posts.push({ id: row.id, score });
      for (const tag of row.tag_names === '' ? [] : row.tag_names.split(' ')) {
        const t = tags.get(tag) ?? { score: 0, posts: 0 };
        t.score += score;
        t.posts += 1;
        tags.set(tag, t);
      }
    }
    posts.sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : -1));
    const topTags = [...tags].map(([tag, t]) => ({ tag, ...t })).sort((a, b) => b.score - a.score || (a.tag < b.tag ? -1 : 1));
    this.snapshot = { computedAtMs: nowMs, posts: posts.slice(0, TRENDING_SNAPSHOT_SIZE), tags: topTags.slice(0, TRENDING_SNAPSHOT_SIZE) };
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
