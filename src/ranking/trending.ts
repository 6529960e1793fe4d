/**
 * What "trending" means, once: trending tags (the tags carried by the most pooled posts in
 * a recent window; they drive the `TRENDING_TAG` reason and the cold-start ranking) and
 * trending posts (engagement decayed with age; the trending endpoint).
 */
import { engagementScore } from './features.js';
import type { PostCounts } from './ranking.types.js';
import type { Vocabulary } from './vocabulary.js';

/** A trending tag, with the number of window posts carrying it. */
export interface TrendingTag {
  /** Lowercase, without `#`. */
  readonly tag: string;
  readonly termId: number;
  readonly count: number;
}

interface TaggedSlot {
  readonly tagIds: Int32Array;
  readonly post: { readonly createdAtMs: number };
}

/**
 * The `topK` tags with at least `minCount` posts created in the `windowHours` before
 * `nowMs`, most posts first (ties by tag name so the list is deterministic).
 */
export function computeTrending(
  slots: readonly (TaggedSlot | undefined)[],
  vocabulary: Vocabulary,
  nowMs: number,
  windowHours: number,
  topK: number,
  minCount: number,
): TrendingTag[] {
  const since = nowMs - windowHours * 3_600_000;
  const counts = new Map<number, number>();
  for (const slot of slots) {
    if (slot === undefined || slot.post.createdAtMs < since || slot.post.createdAtMs > nowMs) continue;
    for (const id of slot.tagIds) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  const tags: TrendingTag[] = [];
  for (const [termId, count] of counts) {
    if (count >= minCount) tags.push({ tag: vocabulary.term(termId).slice(1), termId, count });
  }
  tags.sort((a, b) => b.count - a.count || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
  return tags.slice(0, topK);
}

/** A post's trend halves every 12 hours. */
export const TRENDING_HALF_LIFE_HOURS = 12;
/** Only posts of the last three days can trend. */
export const TRENDING_WINDOW_HOURS = 72;

/** A post as trending posts read it. */
export interface TrendCandidate extends PostCounts {
  readonly id: string;
  readonly createdAtMs: number;
}

/**
 * Trending posts: trend_score = engagementScore · 2^(−age_hours / TRENDING_HALF_LIFE_HOURS),
 * the `size` highest first (ties: newer id first), posts scoring 0 left out. The caller
 * passes the original public posts of the last TRENDING_WINDOW_HOURS.
 */
export function computeTrendingPosts(posts: Iterable<TrendCandidate>, nowMs: number, size: number): { id: string; score: number }[] {
  const scored: { id: string; score: number }[] = [];
  for (const post of posts) {
    const ageHours = Math.max(0, nowMs - post.createdAtMs) / 3_600_000;
    const score = engagementScore(post) * Math.pow(2, -ageHours / TRENDING_HALF_LIFE_HOURS);
    if (score > 0) scored.push({ id: post.id, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : -1));
  return scored.slice(0, size);
}
