/**
 * The interactions' part of a user's data (the privacy feature's `UserDataPart`, wired in
 * server/features.ts). The `interactions` rows themselves go with every table that has a
 * `user_id` column; what they added to the posts' counters (a favourite, reblog or bookmark
 * each count once on its post: the engagement the ranking and the shipped cold start read)
 * is taken back here, in the erasure's transaction, so that an erased user's positives are no
 * longer counted. Once committed, the posts' new counts are announced (postCountsChanged): the
 * pool here and, through the fan-out, on the other instances; a pool that misses one is put
 * right by the candidate pool refresh. The retention agent's purges keep the counts (they are
 * aggregates, docs/privacy.md).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database.js';
import { addPostCounts, type CountDeltas, type PostService } from '../posts/post.service.js';
import type { UserDataPart } from '../privacy/user-data.types.js';
import type { RankingEvents } from '../ranking-state/ranking-state.events.js';

/** Which counter each action added to. */
const COUNTER: Readonly<Record<string, keyof CountDeltas>> = { favorite: 'favourites', reblog: 'reblogs', bookmark: 'bookmarks' };

/**
 * The counters the user's interactions added, by post, as negative deltas, and when the newest
 * of them happened: the decrease is dated there (a user's interactions with one post are one
 * of each action, and close in time), so the engagement's decayed sums take back what these
 * interactions added — not as much again at the newest instant (docs/ranking.md).
 */
async function userCountDeltas(db: Kysely<Database>, keys: readonly string[]): Promise<Map<string, { deltas: CountDeltas; atMs: number }>> {
  const rows = await db
    .selectFrom('interactions')
    .select((eb) => ['post_id', 'action_type', eb.fn.countAll<number | string>().as('n'), eb.fn.max('created_at_ms').as('at_ms')])
    .where('user_id', 'in', keys)
    .groupBy(['post_id', 'action_type'])
    .execute();
  const byPost = new Map<string, { deltas: CountDeltas; atMs: number }>();
  for (const row of rows) {
    const counter = COUNTER[row.action_type];
    if (counter === undefined) continue;
    const entry = byPost.get(row.post_id) ?? { deltas: {}, atMs: -Infinity };
    entry.deltas[counter] = (entry.deltas[counter] ?? 0) - Number(row.n);
    entry.atMs = Math.max(entry.atMs, Number(row.at_ms));
    byPost.set(row.post_id, entry);
  }
  return byPost;
}

export function interactionUserData(deps: {
  db: Kysely<Database>;
  posts: Pick<PostService, 'rankablePosts'>;
  ranking: Pick<RankingEvents, 'postCountsChanged'>;
}): UserDataPart {
  return {
    async untrack(trx, keys) {
      const byPost = await userCountDeltas(trx, keys);
      if (byPost.size === 0) return undefined;
      await addPostCounts(trx, new Map([...byPost].map(([id, entry]) => [id, entry.deltas])));
      const ids = [...byPost.keys()];
      return async () => {
        // After the commit: the counts as stored now (another write may have moved them meanwhile).
        for (const post of (await deps.posts.rankablePosts(ids)).values()) {
          const counts = { favourites: post.favourites, reblogs: post.reblogs, replies: post.replies, bookmarks: post.bookmarks ?? 0 };
          const atMs = byPost.get(post.id)?.atMs;
          deps.ranking.postCountsChanged(post.id, counts, atMs !== undefined && Number.isFinite(atMs) ? atMs : undefined);
        }
      };
    },
  };
}
