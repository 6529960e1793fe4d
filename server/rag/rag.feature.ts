/**
 * Registers the RAG feature: the query route and the `rag_indexer` agent, over an index
 * loaded here (documentation, then the newest posts). The index is created beforehand
 * (`createRagRuntime`) so that health can report its size whatever the registration order.
 */
import type { FastifyInstance } from 'fastify';
import type { AgentRunner } from '../platform/agents/agent-runner.js';
import type { ServiceMetrics } from '../platform/metrics/service-metrics.js';
import { loadDocumentation } from './docs-corpus.js';
import { RagIndex } from './rag-index.js';
import { EXCLUDE_NOBODY, ragIndexerAgent, syncPosts, type ExcludedAuthors } from './rag-indexer.js';
import type { IndexablePosts } from './indexable-posts.types.js';
import { ragRoutes } from './rag.routes.js';
import { RagService } from './rag.service.js';
import { DEFAULT_RAG_SETTINGS, type RagSettings } from './rag.settings.js';

export type { ExcludedAuthors } from './rag-indexer.js';
export type { IndexablePosts } from './indexable-posts.types.js';
export type { RagHealth } from './rag-index.js';

/**
 * The index, its settings and the privacy hook, made before any route (health reads
 * `index.health()`). The privacy feature sets `excludedAuthors` (read at every indexer
 * pass) and calls `index.removeAuthor` on erasure.
 */
export interface RagRuntime {
  index: RagIndex;
  settings: RagSettings;
  /** Authors whose posts are never indexed (tracking level `none`); nobody by default. */
  excludedAuthors: ExcludedAuthors;
}

/** A runtime with these settings (defaults for the unset ones), an empty index and no author excluded. */
export function createRagRuntime(settings: Partial<RagSettings> = {}): RagRuntime {
  const full = { ...DEFAULT_RAG_SETTINGS, ...settings };
  return { index: new RagIndex(full.maxIndexedPosts), settings: full, excludedAuthors: EXCLUDE_NOBODY };
}

/** What the feature takes from the app's context. */
export interface RagContext {
  agents: AgentRunner;
  agentIntervalSeconds: number;
  metrics: ServiceMetrics;
  rag: RagRuntime;
}

export interface RagDeps {
  /** The stored posts the index covers (the posts feature's). */
  posts: IndexablePosts;
  /** Where README.md and docs/ are (default: this package's root). */
  docsRoot?: string;
}

export interface RagFeature {
  /** Privacy: drops every chunk of an author's posts now (erasure, or a switch to `none`). */
  removeAuthor(accountId: string): number;
  /** Runs one indexer pass now (what the agent does on its schedule). */
  reindex(): Promise<void>;
}

/** Loads the index, registers `POST /api/v1/rag/query` and the `rag_indexer` agent. */
export async function registerRag(app: FastifyInstance, context: RagContext, deps: RagDeps): Promise<RagFeature> {
  const runtime = context.rag;
  const { index, settings } = runtime;
  const { posts } = deps;
  // Read at each pass: the privacy feature may set the hook after this registration.
  const excludedAuthors: ExcludedAuthors = (accountIds) => runtime.excludedAuthors(accountIds);
  index.setDocumentation(loadDocumentation(deps.docsRoot));
  await syncPosts(posts, index, excludedAuthors);
  index.markLoaded();
  context.metrics.watchCaches(() => [{ cache: 'rag_chunks', entries: index.size, bytes: index.chars }]);
  context.agents.register(ragIndexerAgent(posts, index, excludedAuthors, context.agentIntervalSeconds));
  await app.register(ragRoutes, { rag: new RagService(index, settings.llm, app.log) });
  return {
    removeAuthor: (accountId) => index.removeAuthor(accountId),
    reindex: async () => {
      await syncPosts(posts, index, excludedAuthors);
    },
  };
}
