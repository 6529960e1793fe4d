/**
 * A real app with the RAG feature, on a real migrated SQLite database, with tokens. The
 * app gets the test's RAG runtime through `AppOptions.rag`; an app whose features do not
 * register the RAG route yet gets it registered here, the way server/features.ts does.
 */
import type { FastifyInstance } from 'fastify';
import type { RateLimitPolicy } from '../../../src/rate-limit/policy.js';
import { buildApp } from '../../../server/app.js';
import { createToken } from '../../../server/platform/auth/token.service.js';
import type { DatabaseHandle } from '../../../server/platform/db/connection.js';
import { createServiceMetrics } from '../../../server/platform/metrics/service-metrics.js';
import { findPostTexts, listIndexablePostHeads } from '../../../server/posts/indexable-posts.repository.js';
import { createRagRuntime, registerRag, type ExcludedAuthors, type RagRuntime } from '../../../server/rag/rag.feature.js';
import type { RagSettings } from '../../../server/rag/rag.settings.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';
import { openTestDatabase } from '../../helpers/test-database.js';

export interface RagTestApp {
  app: FastifyInstance;
  database: DatabaseHandle;
  runtime: RagRuntime;
  /** Whether buildApp registered the feature itself (server/features.ts wired), health included. */
  wiredByApp: boolean;
  /** One indexer pass (the `rag_indexer` agent, run now). */
  reindex(): Promise<void>;
  /** Bearer headers of a read-only token (a user's). */
  readHeaders: Record<string, string>;
  adminHeaders: Record<string, string>;
  /** Stores a public status through the posts API. */
  storePost(n: number, text: string, options?: { author?: string; tags?: string[] }): Promise<string>;
  close(): Promise<void>;
}

export interface RagTestAppOptions {
  settings?: Partial<RagSettings>;
  excludedAuthors?: ExcludedAuthors;
  rateLimit?: RateLimitPolicy | null;
  /** Runs first, on an app of the same database without the feature (posts present at its start). */
  before?: (app: FastifyInstance, adminHeaders: Record<string, string>) => Promise<void>;
}

export async function createRagTestApp(options: RagTestAppOptions = {}): Promise<RagTestApp> {
  const opened = await openTestDatabase();
  const { database } = opened;
  const mint = async (scopes: ('read' | 'write' | 'admin')[], userId: string | null): Promise<Record<string, string>> => {
    const { token } = await createToken(database.db, { scopes, tier: 'authenticated', userId, ttlSeconds: 3600 });
    return { authorization: `Bearer ${token}` };
  };
  const adminHeaders = await mint(['read', 'write', 'admin'], null);
  const readHeaders = await mint(['read'], 'reader');
  if (options.before) {
    const earlier = await buildApp({ database, rateLimit: null, proxy: false });
    await options.before(earlier, adminHeaders);
    await earlier.close();
  }
  const runtime = createRagRuntime(options.settings);
  if (options.excludedAuthors) runtime.excludedAuthors = options.excludedAuthors;
  // A variable, not a literal: `rag` is accepted whether or not AppOptions declares it yet.
  const metrics = createServiceMetrics();
  const appOptions = { database, rateLimit: options.rateLimit ?? null, proxy: false, rag: runtime, metrics };
  const app = await buildApp(appOptions);
  const wiredByApp = app.hasRoute({ method: 'POST', url: '/api/v1/rag/query' });
  if (!wiredByApp) {
    const posts = {
      heads: (limit: number) => listIndexablePostHeads(database.db, limit),
      texts: (ids: readonly string[]) => findPostTexts(database.db, ids),
    };
    await registerRag(app, { agents: app.agentRunner, agentIntervalSeconds: 60, metrics, rag: runtime }, { posts });
  }
  const storePost: RagTestApp['storePost'] = async (n, text, postOptions = {}) => {
    const status = makeStatus({ n, text, author: postOptions.author, tags: postOptions.tags ?? [] });
    const response = await app.inject({ method: 'POST', url: '/api/v1/posts', headers: adminHeaders, payload: status });
    if (response.statusCode !== 201) throw new Error(`storing post ${n}: ${response.statusCode} ${response.body}`);
    return postId(n);
  };
  await app.ready();
  return {
    app,
    database,
    runtime,
    wiredByApp,
    reindex: async () => {
      await app.agentRunner.runNow('rag_indexer');
    },
    readHeaders,
    adminHeaders,
    storePost,
    async close() {
      await app.close();
      await opened.close();
    },
  };
}

/** `POST /api/v1/rag/query` with these headers and body. */
export function ragQuery(app: FastifyInstance, headers: Record<string, string>, payload: unknown) {
  return app.inject({ method: 'POST', url: '/api/v1/rag/query', headers, payload: payload as object });
}
