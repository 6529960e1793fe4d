/**
 * Keeps the RAG index in step with the posts table: the newest `maxPosts` public or unlisted
 * originals whose authors may be indexed. One pass reads only ids, authors and versions,
 * then the text of new or changed posts; posts deleted, pushed out by newer ones, or whose
 * author opted out leave the index. Runs at start and as the `rag_indexer` agent.
 */
import type { Agent } from '../platform/agents/agent.types.js';
import type { IndexablePosts } from './indexable-posts.types.js';
import type { RagIndex } from './rag-index.js';

/**
 * The privacy hook: of these authors (post `account_id`s), those whose posts must never be
 * indexed (tracking level `none`). The default excludes nobody.
 */
export type ExcludedAuthors = (accountIds: readonly string[]) => Promise<ReadonlySet<string>> | ReadonlySet<string>;

export const EXCLUDE_NOBODY: ExcludedAuthors = () => new Set();

/** Posts whose text is read per query. */
const TEXT_BATCH = 500;

export interface SyncResult {
  indexed: number;
  removed: number;
}

/** One pass of the indexer (see the file's comment). */
export async function syncPosts(posts: IndexablePosts, index: RagIndex, excludedAuthors: ExcludedAuthors): Promise<SyncResult> {
  const heads = await posts.heads(index.maxPosts);
  const excluded = await excludedAuthors([...new Set(heads.map((head) => head.account_id))]);
  const wanted = new Map(heads.filter((head) => !excluded.has(head.account_id)).map((head) => [head.id, head]));
  let removed = 0;
  for (const id of index.postIds()) if (!wanted.has(id) && index.removePost(id)) removed += 1;
  const stale = [...wanted.values()].filter((head) => index.postVersion(head.id) !== head.ingested_at);
  let indexed = 0;
  for (let i = 0; i < stale.length; i += TEXT_BATCH) {
    const batch = stale.slice(i, i + TEXT_BATCH);
    const versions = new Map(batch.map((head) => [head.id, head.ingested_at]));
    for (const row of await posts.texts([...versions.keys()])) {
      const post = {
        id: row.id,
        accountId: row.account_id,
        url: row.url,
        spoilerText: row.spoiler_text,
        plainText: row.plain_text,
        tagNames: row.tag_names,
      };
      if (index.upsertPost(post, versions.get(row.id) ?? '')) indexed += 1;
    }
  }
  return { indexed, removed };
}

/** The `rag_indexer` agent. */
export function ragIndexerAgent(posts: IndexablePosts, index: RagIndex, excludedAuthors: ExcludedAuthors, intervalSeconds: number): Agent {
  return {
    name: 'rag_indexer',
    description: 'keeps the RAG index in step with the newest stored posts (new, edited, deleted, opted out)',
    intervalSeconds,
    // Keeps this process's in-memory index in step with the posts table.
    scope: 'instance',
    async run() {
      const { indexed, removed } = await syncPosts(posts, index, excludedAuthors);
      return {
        summary: `indexed ${indexed} posts, removed ${removed}; ${index.size} chunks loaded`,
        details: { indexed, removed, chunks_loaded: index.size },
      };
    },
  };
}
