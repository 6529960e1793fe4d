/**
 * The reads of `interactions` the co-engagement state needs (docs/ranking.md): the partners a
 * new interaction is paired with, the newest interactions a rebuild replays, and a user's
 * most recent posts (the collaborative feature's seeds).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database.js';
import { queryTemplate } from '../platform/db/precompiled-query.js';
import type { InteractionAction } from '../../src/ranking/ranking.types.js';

/** Arguments: user, post, instant, interaction id, row limit. */
const partnersQuery = queryTemplate((db: Kysely<Database>, args) =>
  db
    .selectFrom('interactions')
    .select('post_id')
    .where('user_id', '=', args[0] as string)
    .where('post_id', '<>', args[1] as string)
    // A row-value comparison: both SQLite and PostgreSQL search the (user_id, created_at_ms, id)
    // index for the range itself, where the equivalent OR was searched on user_id and filtered.
    .where((eb) => eb(eb.refTuple('created_at_ms', 'id'), '<', eb.tuple(args[2] as number, args[3] as string)))
    .orderBy('created_at_ms', 'desc')
    .orderBy('id', 'desc')
    .limit(args[4] as number),
);

/**
 * The posts of the user's interactions made before (`atMs`, `id`) on other posts than
 * `postId`, newest first, at most `limit` rows (a post may come more than once: one row per action).
 */
export async function postsBefore(
  db: Kysely<Database>,
  userId: string,
  postId: string,
  atMs: number,
  id: string,
  limit: number,
): Promise<string[]> {
  const { rows } = await partnersQuery(db, [userId, postId, atMs, id, limit]);
  return rows.map((row) => row.post_id);
}

/** Arguments: user, row limit. */
const newestRowsQuery = queryTemplate((db: Kysely<Database>, args) =>
  db
    .selectFrom('interactions')
    .select(['post_id', 'created_at_ms', 'id'])
    .where('user_id', '=', args[0] as string)
    .orderBy('created_at_ms', 'desc')
    .orderBy('id', 'desc')
    .limit(args[1] as number),
);

/** The user's newest interactions (post, instant, id), newest first, at most `limit`: what the writers' memory holds of a user. */
export async function newestInteractionKeys(
  db: Kysely<Database>,
  userId: string,
  limit: number,
): Promise<{ postId: string; atMs: number; id: string }[]> {
  const { rows } = await newestRowsQuery(db, [userId, limit]);
  return rows.map((row) => ({ postId: row.post_id, atMs: Number(row.created_at_ms), id: row.id }));
}

/** The posts of the user's newest interactions, newest first, at most `limit` rows. */
export async function newestPostIds(db: Kysely<Database>, userId: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('interactions')
    .select('post_id')
    .where('user_id', '=', userId)
    .orderBy('created_at_ms', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => row.post_id);
}

/**
 * The newest `limit` interactions (user, post, action, and the row's instant and id), oldest first: what
 * a rebuild of the co-engagement state replays, and what the writers' memory of users' newest
 * interactions starts from (RankingState.recentInteractions).
 */
export async function newestInteractions(
  db: Kysely<Database>,
  limit: number,
): Promise<{ userId: string; postId: string; atMs: number; id: string; action: InteractionAction }[]> {
  const rows = await db
    .selectFrom('interactions')
    .select(['user_id', 'post_id', 'created_at_ms', 'id', 'action_type'])
    .orderBy('created_at_ms', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  const out = new Array<{ userId: string; postId: string; atMs: number; id: string; action: InteractionAction }>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[rows.length - 1 - i]!;
    out[i] = {
      userId: row.user_id,
      postId: row.post_id,
      atMs: Number(row.created_at_ms),
      id: row.id,
      action: row.action_type as InteractionAction,
    };
  }
  return out;
}
