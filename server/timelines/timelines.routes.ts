/**
 * Mastodon's timeline paths on the service (`/api/v1/timelines/home`, `/public`,
 * `/tag/:hashtag`): the caller's own page from their instance, blended with
 * recommendations (./timelines.service.ts). The answer is what Mastodon would send: a bare
 * array, a Link header on the service's own origin whose max_id / min_id are the
 * instance's (so paging walks the instance's timeline), X-RateLimit-* from upstream.
 *
 * Access: `read` scope and a Mastodon token (identity source `social`): the page is
 * fetched with that token. A service token (OAuth-issued ones included) has no instance
 * token to forward: 403.
 *
 * Outages: the routes declare `identityOutage: 'degrade'` (server/platform/plugins/auth.ts), so a
 * Mastodon token that cannot be verified because its instance is down still gets a page,
 * from the service's store alone, flagged by X-Recsvc-Degraded: the user's recommendations
 * when the token's last verified identity is known (`instance-unavailable`), else recent
 * stored posts (`instance-unavailable-unverified`). A token the instance refuses is 401.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hasScope } from '../../src/auth/identity.js';
import { ForbiddenError, AuthenticationError, NotFoundError } from '../../src/errors.js';
import { errorResponses } from '../../src/schemas/common.schema.js';
import { keptQuery, linkHeader, type PageLink } from '../platform/http/paging.js';
import { publicBaseUrl } from '../platform/http/public-url.js';
import { INSTANCE_HEADER, type MastodonIdentityProvider } from '../platform/social/social.service.js';
import { MAX_TIMELINE_LIMIT, type TimelineKind, type TimelinePage, type TimelineQuery, type TimelineService } from './timelines.service.js';

export const DEGRADED_HEADER = 'x-recsvc-degraded';

export interface TimelineRoutesOptions {
  timelines: TimelineService;
  identityProvider: Pick<MastodonIdentityProvider, 'instanceFor'>;
  /**
   * Drop-in mode: the public and tag timelines answer without a token, as Mastodon does, with the
   * instance's own page (nothing woven in: there is no reader). Without it they need a token.
   */
  anonymous?: boolean;
}

const OUTAGE_DESCRIPTION =
  "When the instance is down the answer is still 200, from the service's own store, with `X-Recsvc-Degraded`: " +
  "`instance-unavailable` (the user's recommendations; also when the token was verified within " +
  '`RECSVC_SOCIAL_TOKEN_STALE_SECONDS` and cannot be checked now) or `instance-unavailable-unverified` (the token ' +
  'could not be checked and was never verified: recent stored posts, not personalised). A token the instance refuses is 401.';

const ANONYMOUS_DESCRIPTION =
  "Drop-in mode: without a token, the instance's page as it serves it anonymously (nothing woven in), as Mastodon serves its public and tag timelines.";

const MASTODON_TOKEN_NEEDED = 'Timelines need a Mastodon access token: the page is fetched from your instance with it';

const IdParam = Type.String({ maxLength: 64 });
const Flag = Type.String({ maxLength: 8, description: '`true` or `1` to enable' });

const PagingQuery = {
  max_id: Type.Optional(IdParam),
  since_id: Type.Optional(IdParam),
  min_id: Type.Optional(IdParam),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: `Clamped to ${MAX_TIMELINE_LIMIT}, as Mastodon does` })),
};
const HomeQuery = Type.Object(PagingQuery);
const PublicQuery = Type.Object({
  ...PagingQuery,
  local: Type.Optional(Flag),
  remote: Type.Optional(Flag),
  only_media: Type.Optional(Flag),
});

const TimelineResponse = Type.Array(
  Type.Object(
    {
      id: Type.String(),
      is_recommendation: Type.Boolean(),
      recommendation_metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
    },
    { additionalProperties: true },
  ),
  {
    description:
      'Mastodon statuses as the instance sent them (every field kept) with `is_recommendation: false`, and injected ' +
      'recommendations with `is_recommendation: true` and `recommendation_metadata`',
  },
);

const CONFIG = { access: { scope: 'read' }, identityOutage: 'degrade' } as const;
/** Drop-in mode's public and tag timelines: anyone may ask; a token, when sent, still needs `read` (checked by the route). */
const OPEN_CONFIG = { access: 'public', identityOutage: 'degrade' } as const;
const INSTANCE_HEADER_NAME = INSTANCE_HEADER.toLowerCase();

const headers = {
  type: 'object',
  properties: { [INSTANCE_HEADER_NAME]: { type: 'string', description: 'The instance of the Mastodon token (else the default instance)' } },
} as const;

function bearerToken(request: FastifyRequest): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!match?.[1]) throw new AuthenticationError('A bearer token is required');
  return match[1];
}

/** The Link header of the service's own route for the instance's page relations (their cursors kept). */
function serviceLinks(request: FastifyRequest, upstream: TimelinePage['links']): string | undefined {
  const kept = keptQuery(request, ['max_id', 'since_id', 'min_id']);
  const links: PageLink[] = upstream.flatMap((link) => {
    const cursor = link.rel === 'next' ? link.query.get('max_id') : (link.query.get('min_id') ?? link.query.get('since_id'));
    if (cursor === null || cursor === undefined) return [];
    return [{ rel: link.rel, query: { ...kept, [link.rel === 'next' ? 'max_id' : 'min_id']: cursor } }];
  });
  return linkHeader(request, links);
}

function sendPage(request: FastifyRequest, reply: FastifyReply, page: TimelinePage): FastifyReply {
  for (const [name, value] of Object.entries(page.rateLimitHeaders)) void reply.header(name, value);
  if (page.degraded) void reply.header(DEGRADED_HEADER, page.degraded);
  const link = serviceLinks(request, page.links);
  if (link !== undefined) void reply.header('link', link);
  return reply.code(200).type('application/json; charset=utf-8').send(page.body);
}

/** The query string as the client wrote it (forwarded byte for byte). */
function rawQueryOf(request: FastifyRequest): string {
  const mark = request.url.indexOf('?');
  return mark === -1 ? '' : request.url.slice(mark + 1);
}

export const timelineRoutes: FastifyPluginAsyncTypebox<TimelineRoutesOptions> = async (app, { timelines, identityProvider, anonymous }) => {
  /** Drop-in mode's anonymous reader: the instance's page as it serves it to nobody in particular. */
  const serveAnonymous = async (request: FastifyRequest, reply: FastifyReply, timeline: TimelineKind): Promise<FastifyReply> => {
    const header = request.headers[INSTANCE_HEADER_NAME];
    const instance = identityProvider.instanceFor(Array.isArray(header) ? header[0] : header);
    if (instance === undefined) {
      throw new NotFoundError(
        `No instance to read this timeline from: send ${INSTANCE_HEADER}, or a token (no default instance is configured)`,
      );
    }
    const page = await timelines.anonymousPage(instance, timeline, rawQueryOf(request));
    for (const [name, value] of Object.entries(page.headers)) void reply.header(name, value);
    const link = page.status === 200 ? serviceLinks(request, page.links) : undefined;
    if (link !== undefined) void reply.header('link', link);
    return reply.code(page.status).send(page.body);
  };

  const serve = async (
    request: FastifyRequest,
    reply: FastifyReply,
    timeline: TimelineKind,
    query: TimelineQuery,
  ): Promise<FastifyReply> => {
    const identity = request.identity;
    if (identity.kind !== 'authenticated') {
      if (identity.rejectedToken)
        throw request.tokenRejection ?? new AuthenticationError('The bearer token is invalid, expired or revoked');
      if (anonymous && timeline.kind !== 'home') return serveAnonymous(request, reply, timeline);
      throw new AuthenticationError('A bearer token is required');
    }
    if (!hasScope(identity, 'read')) throw new ForbiddenError('This operation needs the "read" scope');
    if (identity.source !== 'social') throw new ForbiddenError(MASTODON_TOKEN_NEEDED);
    const degraded = request.degradedIdentity;
    const header = request.headers[INSTANCE_HEADER_NAME];
    const instance = identityProvider.instanceFor(Array.isArray(header) ? header[0] : header);
    if (degraded !== undefined) {
      const userId = degraded === 'stale' ? identity.userId : null;
      const reader = instance === undefined ? undefined : { instance, token: bearerToken(request) };
      return sendPage(request, reply, await timelines.fromStore({ timeline, query, userId, ...(reader ? { reader } : {}) }));
    }
    if (identity.userId === null) throw new ForbiddenError(MASTODON_TOKEN_NEEDED);
    if (instance === undefined) throw new ForbiddenError(`No instance: send ${INSTANCE_HEADER} or configure a default instance`);
    const serviceOrigin = publicBaseUrl(request);
    const page = await timelines.page({ timeline, query, userId: identity.userId, token: bearerToken(request), instance, serviceOrigin });
    return sendPage(request, reply, page);
  };

  /** `open`: drop-in mode's public and tag timelines, which anyone may read (the instance's page, without a token). */
  const common = (operationId: string, summary: string, open = false) => ({
    tags: ['timelines'],
    summary,
    description: open ? `${OUTAGE_DESCRIPTION} ${ANONYMOUS_DESCRIPTION}` : OUTAGE_DESCRIPTION,
    operationId,
    headers,
    response: { 200: TimelineResponse, ...(open ? errorResponses(400, 403, 404, 429, 503) : errorResponses(400, 401, 403, 404, 429, 503)) },
  });

  app.get(
    '/api/v1/timelines/home',
    {
      schema: { ...common('getHomeTimeline', "Home timeline from the caller's instance, with recommendations"), querystring: HomeQuery },
      config: CONFIG,
    },
    async (request, reply) => serve(request, reply, { kind: 'home' }, request.query),
  );
  app.get(
    '/api/v1/timelines/public',
    {
      schema: {
        ...common('getPublicTimeline', "Public timeline from the caller's instance, with recommendations", anonymous),
        querystring: PublicQuery,
      },
      config: anonymous ? OPEN_CONFIG : CONFIG,
    },
    async (request, reply) => serve(request, reply, { kind: 'public' }, request.query),
  );
  app.get(
    '/api/v1/timelines/tag/:hashtag',
    {
      schema: {
        ...common('getTagTimeline', "Hashtag timeline from the caller's instance, with recommendations", anonymous),
        params: Type.Object({ hashtag: Type.String({ minLength: 1, maxLength: 100 }) }),
        querystring: PublicQuery,
      },
      config: anonymous ? OPEN_CONFIG : CONFIG,
    },
    async (request, reply) => serve(request, reply, { kind: 'tag', hashtag: request.params.hashtag }, request.query),
  );
};
