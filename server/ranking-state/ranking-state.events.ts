/**
 * The vocabulary of changes to the shared ranking state. Features ANNOUNCE what they
 * committed, as plain data (so the same events can later arrive from another instance
 * over Redis pub/sub); the state's owner decides what to recompute or drop. Nothing
 * else changes the candidate pool, the profiles, the result lists or the status caches.
 */
import type { CoEngagementChange, PoolCounts, RankablePost, UserSignal } from '../../src/ranking/index.js';

export type { CoEngagementChange, PoolCounts, UserSignal } from '../../src/ranking/index.js';

/** A post's counters as announced: the engagement score's and the bookmarks (absent from an older instance: the pool keeps its own). */
export type PostCounts = PoolCounts;

/** A stored post as announced: its ranking view and whether it may be recommended at all. */
export interface StoredPost extends RankablePost {
  readonly visibility: string;
}

/** What every writer of posts, interactions, feedback and preferences announces after its commit. */
export interface RankingEvents {
  /** Posts were inserted or replaced (ingest, demo seeding, timelines). */
  postsStored(posts: readonly StoredPost[]): void;
  /** Posts were deleted (a reblog goes with its original: list both). */
  postsDeleted(ids: readonly string[]): void;
  /** A post's counters changed (an interaction or its undo). */
  /** A post's counters changed; `atMs`: when (an interaction's own time), which the engagement's decay counts from. */
  postCountsChanged(postId: string, counts: PostCounts, atMs?: number): void;
  /** A user's signals changed: an interaction, its undo, feedback, or explicit preferences. */
  userSignalsChanged(userId: string, change: UserSignal): void;
  /** An interaction (or its undo) paired its post with the user's recent other posts (no user named). */
  coEngaged(change: CoEngagementChange): void;
  /** Everything known about a user was erased: nothing of theirs may stay in memory. */
  userErased(userId: string): void;
  /** The database changed under the state (a restore, a bulk import): start again from it. */
  reload(): Promise<void>;
}

/**
 * One instance's event as the other instances receive it (server/platform/redis/ranking-fanout.ts),
 * plain JSON. A user's signal travels as the user alone: the receiver drops what it holds of
 * the user and reads the database again, rather than replaying the change.
 */
export type RankingEventMessage =
  | { readonly type: 'postsStored'; readonly posts: readonly StoredPost[] }
  | { readonly type: 'postsDeleted'; readonly ids: readonly string[] }
  | { readonly type: 'postCountsChanged'; readonly postId: string; readonly counts: PostCounts; readonly atMs?: number }
  | { readonly type: 'userSignalsChanged'; readonly userId: string }
  | { readonly type: 'coEngaged'; readonly change: CoEngagementChange }
  | { readonly type: 'userErased'; readonly userId: string };

/** An event as it travels to the other instances: posts carry their ranking view and visibility only (the fields receivers use). */
export function wireRankingEvent(event: RankingEventMessage): RankingEventMessage {
  if (event.type !== 'postsStored') return event;
  return {
    type: 'postsStored',
    posts: event.posts.map((p) => ({
      id: p.id,
      accountId: p.accountId,
      accountUsername: p.accountUsername,
      text: p.text,
      tags: p.tags,
      language: p.language,
      createdAtMs: p.createdAtMs,
      favourites: p.favourites,
      reblogs: p.reblogs,
      replies: p.replies,
      bookmarks: p.bookmarks ?? 0,
      reblogOfId: p.reblogOfId,
      sensitive: p.sensitive,
      visibility: p.visibility,
    })),
  };
}
