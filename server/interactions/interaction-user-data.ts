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

/** The counters the user's interactions added, by post, as negative deltas. */
async function userCountDeltas(db: Kysely<Database>, keys: readonly string[]): Promise<Map<string, CountDeltas>> {
  const rows = await db
    .selectFrom('interactions')
    .select(['post_id', 'action_type', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('user_id', 'in', keys)
    .groupBy(['post_id', 'action_type'])
    .execute();
  const deltas = new Map<string, CountDeltas>();
  for (const row of rows) {
    const counter = COUNTER[row.action_type];
    if (counter === undefined) continue;
    const delta = deltas.get(row.post_id) ?? {};
    delta[counter] = (delta[counter] ?? 0) - Number(row.n);
    deltas.set(row.post_id, delta);
  }
  return deltas;
}

export function interactionUserData(deps: {
  db: Kysely<Database>;
  posts: Pick<PostService, 'rankablePosts'>;
  ranking: Pick<RankingEvents, 'postCountsChanged'>;
}): UserDataPart {
  return {
    async untrack(trx, keys) {
      const deltas = await userCountDeltas(trx, keys);
      if (deltas.size === 0) return undefined;
      await addPostCounts(trx, deltas);
      const ids = [...deltas.keys()];
      return async () => {
        // After the commit: the counts as stored now (another write may have moved them meanwhile).
        for (const post of (await deps.posts.rankablePosts(ids)).values()) {
          const counts = { favourites: post.favourites, reblogs: post.reblogs, replies: post.replies, bookmarks: post.bookmarks ?? 0 };
          deps.ranking.postCountsChanged(post.id, counts);
        }
      };
    },
  };
}
