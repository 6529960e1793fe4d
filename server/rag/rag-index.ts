/**
 * The in-memory RAG corpus: documentation chunks and one chunk per indexed post, searched
 * with BM25 (MiniSearch's BM25+). Bounded: at most `maxPosts` posts (the indexer keeps the
 * newest), plus the documentation, which is fixed at start.
 */
import MiniSearch from 'minisearch';
import type { Chunk, ScoredChunk } from '../../src/rag/chunk.types.js';
import { postChunk, type PostText } from '../../src/rag/chunking.js';
import { ragTerms } from '../../src/rag/terms.js';

/** The heading path (or a post's tags) counts this much more than a word of the text. */
const TITLE_BOOST = 2;

export interface RagHealth {
  status: 'ready' | 'loading';
  chunks_loaded: number;
}

export class RagIndex {
  private readonly search = new MiniSearch<Chunk>({
    fields: ['title', 'text'],
    tokenize: (text) => ragTerms(text),
    // Terms arrive stemmed from `tokenize`, for documents and queries alike.
    processTerm: (term) => term,
    searchOptions: { boost: { title: TITLE_BOOST }, tokenize: (text) => ragTerms(text), processTerm: (term) => term },
  });
  private readonly chunks = new Map<string, Chunk>();
  /** Indexed posts: the version (ingested_at) their chunk was built from, and their author. */
  private readonly posts = new Map<string, { version: string; accountId: string }>();
  private loaded = false;
  private textChars = 0;

  constructor(readonly maxPosts: number) {}

  /** Replaces the documentation chunks. */
  setDocumentation(chunks: readonly Chunk[]): void {
    for (const chunk of [...this.chunks.values()]) if (chunk.source.type === 'doc') this.discard(chunk.id);
    for (const chunk of chunks) this.add(chunk);
  }

  /** Marks the first full load done (health says `ready`). */
  markLoaded(): void {
    this.loaded = true;
  }

  /** The version an indexed post was built from, or undefined when it is not indexed. */
  postVersion(id: string): string | undefined {
    return this.posts.get(id)?.version;
  }

  /** Ids of the indexed posts. */
  postIds(): string[] {
    return [...this.posts.keys()];
  }

  /** Indexes (or re-indexes) a post's text; refused beyond `maxPosts` (the indexer removes before it adds). */
  upsertPost(post: PostText, version: string): boolean {
    if (!this.posts.has(post.id) && this.posts.size >= this.maxPosts) return false;
    this.removePost(post.id);
    const chunk = postChunk(post);
    this.add(chunk);
    this.posts.set(post.id, { version, accountId: post.accountId });
    return true;
  }

  /** Drops a post's chunk; false when it was not indexed. */
  removePost(id: string): boolean {
    if (!this.posts.delete(id)) return false;
    this.discard(`post:${id}`);
    return true;
  }

  /**
   * Privacy: drops every chunk of an author's posts at once (erasure, or a switch to
   * tracking level `none`); returns how many. The indexer's author filter keeps them out later.
   */
  removeAuthor(accountId: string): number {
    let removed = 0;
    for (const [id, post] of [...this.posts]) if (post.accountId === accountId && this.removePost(id)) removed += 1;
    return removed;
  }

  /** The best `limit` chunks for a question, best first. */
  query(question: string, limit: number): ScoredChunk[] {
    const out: ScoredChunk[] = [];
    for (const hit of this.search.search(question)) {
      const chunk = this.chunks.get(String(hit.id));
      if (chunk) out.push({ ...chunk, score: hit.score });
      if (out.length === limit) break;
    }
    return out;
  }

  /** Characters of chunk text held (for the service_cache_bytes gauge). */
  get chars(): number {
    return this.textChars;
  }

  /** Chunks in the index (documentation and posts). */
  get size(): number {
    return this.chunks.size;
  }

  /** The `rag_service` component of `/api/v1/health`. */
  health(): RagHealth {
    return { status: this.loaded ? 'ready' : 'loading', chunks_loaded: this.chunks.size };
  }

  private add(chunk: Chunk): void {
    this.search.add(chunk);
    this.chunks.set(chunk.id, chunk);
    this.textChars += chunk.text.length + chunk.title.length;
  }

  private discard(id: string): void {
    const chunk = this.chunks.get(id);
    if (!chunk) return;
    this.chunks.delete(id);
    this.textChars -= chunk.text.length + chunk.title.length;
    this.search.discard(id);
  }
}
