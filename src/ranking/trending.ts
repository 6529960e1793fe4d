/**
 * Trending tags: the tags carried by the most pooled posts in a recent window. They
 * drive the `TRENDING_TAG` reason and the cold-start ranking.
 */
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
