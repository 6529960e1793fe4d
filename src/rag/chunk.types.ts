/** The RAG corpus' unit: a passage of the documentation or one stored post, with where it came from. */

/** Where a chunk came from: a documentation file and heading, or a stored post. */
export type ChunkSource =
  | { readonly type: 'doc'; readonly path: string; readonly heading: string }
  | { readonly type: 'post'; readonly post_id: string; readonly url: string | null; readonly account_id: string };

export interface Chunk {
  /** Unique in the corpus: `<path>#<n>` for documentation, `post:<id>` for posts. */
  readonly id: string;
  /** Indexed with a boost: the heading path of a passage, the tags of a post. */
  readonly title: string;
  readonly text: string;
  readonly source: ChunkSource;
}

/** A chunk as retrieved for a query, with its BM25 score. */
export interface ScoredChunk extends Chunk {
  readonly score: number;
}
