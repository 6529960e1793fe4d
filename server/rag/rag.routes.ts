/** `POST /api/v1/rag/query`: top chunks of the documentation and stored posts, and an answer from them. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DEFAULT_RAG_LIMIT, RagQueryBodySchema, RagResultSchema } from '../../src/rag/rag.schema.js';
import { Envelope, errorResponses } from '../../src/schemas/common.schema.js';
import { envelope } from '../platform/http/envelope.js';
import type { RagService } from './rag.service.js';

export const ragRoutes: FastifyPluginAsyncTypebox<{ rag: RagService }> = async (app, { rag }) => {
  app.post(
    '/api/v1/rag/query',
    {
      // Public posts and the documentation, but a model call costs: any valid token, limited per caller.
      config: { access: { scope: 'read' } },
      schema: {
        tags: ['rag'],
        summary: 'Ask a question of the documentation and the stored posts',
        description:
          'BM25 retrieval over chunks of the service documentation (README.md and docs/**/*.md, by heading and paragraph) and of the newest stored public or unlisted posts (RECSVC_RAG_MAX_POSTS). `answer` is written by the configured language model (RECSVC_LLM_URL) citing chunks as [n]; without one, or when it fails or times out, it is an extractive summary that says so (`answer_mode`). Rate group `rag`: 10 per minute, 100 per hour.',
        operationId: 'postRagQuery',
        body: RagQueryBodySchema,
        response: { 200: Envelope(RagResultSchema), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const { query, limit } = request.body;
      return envelope(request, await rag.query(query.trim(), limit ?? DEFAULT_RAG_LIMIT));
    },
  );
};
