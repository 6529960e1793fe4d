/** `/api/v1/recommendations` (GET and POST) and `/api/v1/recommendations/seamless`. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../../src/schemas/common.schema.js';
import {
  RecommendationBodySchema,
  RecommendationQuerySchema,
  RecommendedPostSchema,
  SeamlessBodySchema,
  SeamlessItemSchema,
} from '../../src/schemas/recommendation.schema.js';
import { admittedUser } from '../platform/plugins/access.js';
import { keptQuery, linkHeader, type PageLink } from '../platform/http/paging.js';
import { publicBaseUrl } from '../platform/http/public-url.js';
import { bodyEncodingFor, markEncoding } from '../platform/http/content-encoding.js';
import {
  encodeRecommendationCursor,
  MAX_RECOMMENDATION_CURSOR_LENGTH,
  parseExcludeIds,
  parseRecommendationCursor,
  type EncodedPage,
  type RecommendationCursor,
  type RecommendationService,
} from './recommendation.service.js';
import type { SeamlessService } from './seamless.service.js';

/** Sends a body serialised (and encoded) already (the route's schema documents it): fastify sends bytes as they are. */
function sendSerialised(reply: FastifyReply, page: EncodedPage): FastifyReply {
  markEncoding(reply, page.encoding);
  return reply.code(200).type('application/json; charset=utf-8').send(page.body);
}

export interface RecommendationRoutesOptions {
  recommendations: RecommendationService;
  seamless: SeamlessService;
}

interface RecommendationParams {
  limit?: number | undefined;
  exclude_ids?: string | string[] | undefined;
  max_id?: string | undefined;
  since_id?: string | undefined;
  min_id?: string | undefined;
  cursor?: string | undefined;
}

/**
 * The GET query: the spec's parameters plus Mastodon's `min_id` (posts newer than it, the
 * rel="prev" page) and the opaque `cursor` of rel="next" (a ranked list pages by rank).
 */
const RecommendationPageQuerySchema = Type.Object({
  ...RecommendationQuerySchema.properties,
  min_id: Type.Optional(Type.String({ maxLength: 64 })),
  cursor: Type.Optional(
    Type.String({ maxLength: MAX_RECOMMENDATION_CURSOR_LENGTH, description: 'Opaque: copy it from the Link header\'s rel="next"' }),
  ),
});

/** rel="next" continues the ranked list after this page; rel="prev" asks for posts newer than any on it. */
function recommendationLinks(
  request: FastifyRequest,
  page: { next: RecommendationCursor | undefined; newestId: string | undefined },
): PageLink[] {
  const links: PageLink[] = [];
  if (page.next !== undefined) {
    links.push({ rel: 'next', query: { ...keptQuery(request, ['cursor']), cursor: encodeRecommendationCursor(page.next) } });
  }
  if (page.newestId !== undefined) {
    links.push({ rel: 'prev', query: { ...keptQuery(request, ['cursor', 'max_id', 'since_id', 'min_id']), min_id: page.newestId } });
  }
  return links;
}

/**
 * The Link header of each page object, by the URL it was asked with: a warm first page is the
 * same object again (ServedFirstPage), and its links depend on nothing but the page, the public
 * base URL and the request's URL (whose query they carry over), so they are written once.
 */
const linkHeaders = new WeakMap<object, { url: string; link: string | undefined }>();

function pageLinkHeader(
  request: FastifyRequest,
  page: { next: RecommendationCursor | undefined; newestId: string | undefined },
): string | undefined {
  const url = `${publicBaseUrl(request)}${request.url}`;
  const known = linkHeaders.get(page);
  if (known !== undefined && known.url === url) return known.link;
  const link = linkHeader(request, recommendationLinks(request, page));
  linkHeaders.set(page, { url, link });
  return link;
}

export const recommendationRoutes: FastifyPluginAsyncTypebox<RecommendationRoutesOptions> = async (app, { recommendations, seamless }) => {
  const list = Type.Array(RecommendedPostSchema);

  /** The page for the query (GET) or body (POST) parameters, for the user the route's rule admitted. */
  const recommend = (request: FastifyRequest, p: RecommendationParams) => {
    const after = parseRecommendationCursor(p.cursor);
    return recommendations.recommendJson(
      admittedUser(request),
      {
        limit: p.limit ?? 20,
        excludeIds: parseExcludeIds(p.exclude_ids),
        ...(p.max_id !== undefined ? { maxId: p.max_id } : {}),
        ...(p.since_id !== undefined ? { sinceId: p.since_id } : {}),
        ...(p.min_id !== undefined ? { minId: p.min_id } : {}),
        ...(after !== undefined ? { after } : {}),
      },
      bodyEncodingFor(request.headers['accept-encoding']),
    );
  };

  app.get(
    '/api/v1/recommendations',
    {
      config: { access: { scope: 'read', user: 'query.user_id' } },
      schema: {
        tags: ['recommendations'],
        summary: 'Recommended posts for a user: Mastodon statuses with ranking_score, reason and metadata; Link header paging',
        operationId: 'getRecommendations',
        querystring: RecommendationPageQuerySchema,
        response: { 200: list, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const page = await recommend(request, request.query);
      const link = pageLinkHeader(request, page.links);
      if (link !== undefined) reply.header('link', link);
      return sendSerialised(reply, page);
    },
  );

  app.post(
    '/api/v1/recommendations',
    {
      config: { access: { scope: 'read', user: 'body.user_id' } },
      schema: {
        tags: ['recommendations'],
        summary: 'Recommended posts for a user (body variant)',
        operationId: 'postRecommendations',
        body: RecommendationBodySchema,
        response: { 200: list, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => sendSerialised(reply, await recommend(request, request.body)),
  );

  app.post(
    '/api/v1/recommendations/seamless',
    {
      config: { access: { scope: 'read', user: 'body.user_id ?? token' } },
      schema: {
        tags: ['recommendations'],
        summary: "Recommendations to blend into the client's timeline, with insertion points",
        operationId: 'postSeamlessRecommendations',
        body: SeamlessBodySchema,
        response: { 200: Type.Array(SeamlessItemSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const items = await seamless.plan({
        userId: admittedUser(request),
        existingIds: b.existing_statuses.map((s) => s.id),
        maxRecommendations: b.max_recommendations ?? 10,
      });
      return reply.code(200).send(items);
    },
  );
};
