/**
 * The posts the RAG index may hold (newest first) and their text: the rag feature's
 * `IndexablePosts` (server/rag/indexable-posts.types.ts), wired in server/features.ts.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database.js';
import type { PostHead, PostText } from '../rag/indexable-posts.types.js';

/**
 * The newest `limit` originals (not reblogs) that anyone may read: public and unlisted
 * posts only, so the endpoint never quotes a private or direct post to another caller.
 */
export async function listIndexablePostHeads(db: Kysely<Database>, limit: number): Promise<PostHead[]> {
  if (limit === 0) return [];
  return db
    .selectFrom('posts')
    .select(['id', 'account_id', 'ingested_at'])
    .where('reblog_of_id', 'is', null)
    .where('visibility', 'in', ['public', 'unlisted'])
    .orderBy('sort_key', 'desc')
    .limit(limit)
    .execute();
}

/** The text columns of these posts (missing ids are absent). */
export async function findPostTexts(db: Kysely<Database>, ids: readonly string[]): Promise<PostText[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('posts')
    .select(['id', 'account_id', 'url', 'spoiler_text', 'plain_text', 'tag_names'])
    .where('id', 'in', [...ids])
    .execute();
}
