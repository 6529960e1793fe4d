/**
 * The interactions feature's interface for trending: who engaged with the posts of a window,
 * counted as distinct users per post and per instance, each weighted by its account's age
 * (src/ranking/trending.ts, `distinctEngagement` and `accountAgeWeight`). A social user's id is
 * `<account id>@<instance host>`; an id without '@' is the service's own API user, grouped under
 * instance ''. A user's age is its account's `created_at` where the service stored that account
 * (the instance's own id for it: the posts feature's `accountCreatedAt`, handed in by
 * server/features.ts), else the time of its oldest stored interaction (when the service first saw it act).
 */
import type { Kysely } from 'kysely';
import { engagerGroups, engagerInstance, type EngagerGroup } from '../../src/ranking/index.js';
import type { Database } from '../platform/db/database.js';
import { engagerFirstSeenRows, postEngagementRows } from './interaction.repository.js';

/** The distinct engagers of one post from one instance. */
export interface PostEngagerGroup extends EngagerGroup {
  readonly postId: string;
}

/** The stored accounts' `created_at` for (instance, that instance's account id) pairs, as `<local id>@<instance>` → created_at. */
export type AccountCreatedAt = (pairs: readonly { instance: string; localId: string }[]) => Promise<Map<string, string>>;

const orNull = (value: number | string | null): number | null => (value === null ? null : Number(value));

/** Age-weighted favouriting and reblogging users of each post created since `sinceMs`, by post and instance. */
export async function postEngagerGroups(
  db: Kysely<Database>,
  sinceMs: number,
  accountCreatedAt: AccountCreatedAt,
): Promise<PostEngagerGroup[]> {
  const [engagements, firstSeen] = await Promise.all([postEngagementRows(db, sinceMs), engagerFirstSeenRows(db, sinceMs)]);
  const sinceByUser = new Map(firstSeen.map((row) => [row.user_id, Number(row.first_ms)]));
  const social = [...sinceByUser.keys()].flatMap((userId) => {
    const instance = engagerInstance(userId);
    return instance === '' ? [] : [{ instance, localId: userId.slice(0, userId.length - instance.length - 1) }];
  });
  for (const [userId, createdAt] of await accountCreatedAt(social)) {
    const ms = Date.parse(createdAt);
    if (Number.isFinite(ms)) sinceByUser.set(userId, ms);
  }
  return engagerGroups(
    engagements.map((row) => ({
      postId: row.post_id,
      userId: row.user_id,
      favouritedAtMs: orNull(row.favourited_at_ms),
      rebloggedAtMs: orNull(row.reblogged_at_ms),
    })),
    (userId) => sinceByUser.get(userId),
  );
}
