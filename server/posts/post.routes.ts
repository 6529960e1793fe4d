/** `/api/v1/posts`: Mastodon statuses (public reads, admin writes) and trending posts. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../../src/schemas/common.schema.js';
import {
  PostIdParamsSchema,
  PostListQuerySchema,
  StatusBatchSchema,
  StatusInputSchema,
  StatusSchema,
  TrendingQuerySchema,
} from '../../src/schemas/post.schema.js';
import { idPageLinks, offsetPageLinks, setLinkHeader } from '../platform/http/paging.js';
import type { PostService } from './post.service.js';
import { trendingPage, type TrendingService } from './trending.service.js';

export interface PostRoutesOptions {
  posts: PostService;
  trending: TrendingService;
}

const ADMIN = { access: { scope: 'admin' } } as const;
const PUBLIC = { access: 'public' } as const;

export const postRoutes: FastifyPluginAsyncTypebox<PostRoutesOptions> = async (app, { posts, trending }) => {
  app.post(
    '/api/v1/posts',
    {
      config: ADMIN,
      schema: {
        tags: ['posts'],
        summary: 'Ingest one Mastodon status (created, or refreshed when its id exists)',
        operationId: 'createPost',
        body: StatusInputSchema,
        response: { 201: StatusSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      return reply.code(201).send(await posts.ingestOne(request.body));
    },
  );

  app.post(
    '/api/v1/posts/batch',
    {
      config: ADMIN,
      schema: {
        tags: ['posts'],
        summary: 'Ingest up to 500 Mastodon statuses in one transaction',
        operationId: 'createPostsBatch',
        body: StatusBatchSchema,
        response: { 201: Type.Array(StatusSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => reply.code(201).send(await posts.ingest(request.body.statuses)),
  );

  app.get(
    '/api/v1/posts',
    {
      config: PUBLIC,
      schema: {
        tags: ['posts'],
        summary: 'List posts, newest first, by author or tag, with Mastodon paging and a Link header',
        operationId: 'listPosts',
        querystring: PostListQuerySchema,
        response: { 200: Type.Array(StatusSchema), ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const limit = q.limit ?? 20;
      const statuses = await posts.list({
        ...(q.account_id !== undefined ? { accountId: q.account_id } : {}),
        ...(q.tag !== undefined ? { tag: q.tag } : {}),
        ...(q.max_id !== undefined ? { maxId: q.max_id } : {}),
        ...(q.since_id !== undefined ? { sinceId: q.since_id } : {}),
        ...(q.min_id !== undefined ? { minId: q.min_id } : {}),
        limit,
      });
      setLinkHeader(
        reply,
        request,
        idPageLinks(request, { newestId: statuses[0]?.id, oldestId: statuses.at(-1)?.id, count: statuses.length, limit }),
      );
      return statuses;
    },
  );

  app.get(
    '/api/v1/posts/trending',
    {
      config: PUBLIC,
      schema: {
        tags: ['posts'],
        summary:
          'Posts trending now: distinct engagers (grouped by instance) decayed with a 12-hour half-life, diverse across instances and authors; paged by offset with a Link header',
        operationId: 'listTrendingPosts',
        querystring: TrendingQuerySchema,
        response: { 200: Type.Array(StatusSchema), ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const { limit = 20, offset = 0 } = request.query;
      const page = trendingPage(await trending.current(), offset, limit);
      const byId = await posts.statusesByIds(page.ids);
      setLinkHeader(reply, request, offsetPageLinks(request, { offset, limit, total: page.total }));
      return page.ids.map((id) => byId.get(id)).filter((s) => s !== undefined);
    },
  );

  app.get(
    '/api/v1/posts/:id',
    {
      config: PUBLIC,
      schema: {
        tags: ['posts'],
        summary: 'One post as a Mastodon status',
        operationId: 'getPost',
        params: PostIdParamsSchema,
        response: { 200: StatusSchema, ...errorResponses(404) },
      },
    },
    async (request) => posts.get(request.params.id),
  );

  app.delete(
    '/api/v1/posts/:id',
    {
      config: ADMIN,
      schema: {
        tags: ['posts'],
        summary: 'Delete a post (and its reblogs, interactions and feedback); returns it as Mastodon does',
        operationId: 'deletePost',
        params: PostIdParamsSchema,
        response: { 200: StatusSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const { status, deletedIds } = await posts.delete(request.params.id);
      trending.forget(deletedIds);
      return status;
    },
  );
};
