/**
 * What the RAG index reads of the stored posts: a port the rag feature declares and the posts
 * feature implements (server/posts/indexable-posts.repository.ts), wired in server/features.ts.
 */

/** What tells whether an indexed post is still current. */
export interface PostHead {
  id: string;
  account_id: string;
  /** Rewritten on every (re)ingest: a changed value means the text may have changed. */
  ingested_at: string;
}

export interface PostText {
  id: string;
  account_id: string;
  url: string | null;
  spoiler_text: string;
  plain_text: string;
  tag_names: string;
}

/** The stored posts the index covers, read through the posts feature (wired in server/features.ts). */
export interface IndexablePosts {
  /** The newest `limit` originals (not reblogs) that anyone may read (public and unlisted), newest first. */
  heads(limit: number): Promise<PostHead[]>;
  /** The text columns of these posts (missing ids are absent). */
  texts(ids: readonly string[]): Promise<PostText[]>;
}
