/**
 * Stores a synthetic data set in a migrated recsvc database (SQLite or PostgreSQL) as the
 * service would hold it: accounts, posts, and the interactions with ids in time order (the
 * `ranking_fit` agent and `recsvc eval --max-interactions` read the newest by id).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../server/platform/db/database.js';
import { accountRow, postRow } from '../../server/posts/post.mapper.js';
import type { SyntheticData } from '../../src/evaluation/generate.js';
import type { StatusRecord } from '../../src/evaluation/import-format.js';
import type { StatusInput } from '../../src/schemas/post.schema.js';

/** The interactions oldest first (ties in the generator's order): their stored ids follow this order. */
export function interactionsInTimeOrder(data: SyntheticData): SyntheticData['interactions'] {
  return data.interactions
    .map((x, at) => ({ x, at }))
    .sort((a, b) => Date.parse(a.x.created_at) - Date.parse(b.x.created_at) || a.at - b.at)
    .map(({ x }) => x);
}

export async function storeSynthetic(db: Kysely<Database>, data: SyntheticData): Promise<void> {
  const now = Date.now();
  await db
    .insertInto('accounts')
    .values(data.statuses.map((s) => accountRow(s.account as StatusInput['account'], new Date(now).toISOString())))
    .onConflict((c) => c.doNothing())
    .execute();
  for (let i = 0; i < data.statuses.length; i += 200) {
    await db
      .insertInto('posts')
      .values(data.statuses.slice(i, i + 200).map((s: StatusRecord) => postRow(s as unknown as StatusInput, now, null, undefined)))
      .execute();
  }
  const ordered = interactionsInTimeOrder(data);
  for (let i = 0; i < ordered.length; i += 500) {
    await db
      .insertInto('interactions')
      .values(
        ordered.slice(i, i + 500).map((x, j) => ({
          id: `i${String(i + j).padStart(9, '0')}`,
          user_id: x.user_id,
          post_id: x.post_id,
          action_type: x.action,
          context_json: null,
          created_at: x.created_at,
          created_at_ms: Date.parse(x.created_at),
        })),
      )
      .execute();
  }
}
