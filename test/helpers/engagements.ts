/**
 * Interactions written as rows, the way the interactions table holds them (one per user, post
 * and action), for tests of what reads them (trending): thousands of engagers at once without
 * a request each. Social users are `<account id>@<instance host>`, API users ids without '@'.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../server/platform/db/database.js';

export interface Engagement {
  postId: string;
  userIds: readonly string[];
  action?: 'favorite' | 'reblog' | 'bookmark';
}

let sequence = 0;

/** `count` social users of `host` (`<n>@host`, n from `from`). */
export function usersOf(host: string, count: number, from = 1): string[] {
  return Array.from({ length: count }, (_, i) => `${from + i}@${host}`);
}

/** Inserts the engagements' interaction rows, made `atMs`. */
export async function insertEngagements(db: Kysely<Database>, engagements: readonly Engagement[], atMs = Date.now()): Promise<void> {
  const rows = engagements.flatMap(({ postId, userIds, action = 'favorite' }) =>
    userIds.map((userId) => ({
      id: `engagement-${process.pid}-${(sequence += 1)}`,
      user_id: userId,
      post_id: postId,
      action_type: action,
      context_json: null,
      created_at: new Date(atMs).toISOString(),
      created_at_ms: atMs,
    })),
  );
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('interactions')
      .values(rows.slice(i, i + 500))
      .execute();
}

/** 60 days, beyond src/ranking/trending.ts's NEW_ACCOUNT_FULL_AGE_DAYS: an account seen acting this long ago counts fully. */
export const ESTABLISHED_MS = 60 * 86_400_000;

/**
 * Makes the users established accounts as trending sees them (first seen acting long ago): a
 * bookmark of `postId` (bookmarks never make a post trend) `ESTABLISHED_MS` before `nowMs`.
 */
export async function establishUsers(db: Kysely<Database>, userIds: readonly string[], postId: string, nowMs = Date.now()): Promise<void> {
  await insertEngagements(db, [{ postId, userIds, action: 'bookmark' }], nowMs - ESTABLISHED_MS);
}
