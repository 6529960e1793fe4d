/**
 * `/api/v1/proxy/<path>`: any method, forwarded to `/<path>` on the caller's instance
 * (./proxy.service.ts says what is forwarded and what is stripped), and the drop-in
 * handler that forwards the Mastodon API paths the service does not implement itself.
 *
 * Bodies of these routes are not parsed: whatever the content type (JSON, form, multipart),
 * the bytes are kept as they came, up to the app's body limit.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AuthenticationError, ForbiddenError, NotFoundError, ValidationError } from '../../src/errors.js';
import type { AuthenticatedIdentity } from '../../src/auth/identity.js';
import type { InstanceAddress, MastodonIdentityProvider } from '../platform/social/social.service.js';
import { NODEINFO_PATH, type NodeinfoCache } from './nodeinfo-cache.js';
import type { ProxyResponse, ProxyService } from './proxy.service.js';
import { splitProxiedUrl } from './proxy.service.js';
import { answerOwnOAuth } from './own-oauth.js';

export const PROXY_PREFIX = '/api/v1/proxy';

/** Mastodon API prefixes drop-in mode forwards when no route of the service matches. */
export const DROP_IN_PREFIXES = ['/api/v1', '/api/v2', '/oauth'] as const;
/** Exact paths drop-in mode forwards (nodeinfo discovery, from ./nodeinfo-cache.ts). */
export const DROP_IN_PATHS = [NODEINFO_PATH] as const;

/**
 * Methods whose routes make a path the service's own in drop-in mode. OPTIONS is not one:
 * CORS answers it on every path.
 */
const OWNING_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Whether the service has a route, for any method, at `path` (route parameters included). */
function ownedByService(app: FastifyInstance, path: string): boolean {
  return OWNING_METHODS.some((method) => {
    // findRoute answers null when nothing matches (its declared type omits it).
    const found: unknown = app.findRoute({ method, url: path });
    return found !== null;
  });
}

export interface ProxyRouteOptions {
  readonly proxy: ProxyService;
  readonly identities: Pick<MastodonIdentityProvider, 'instanceFor'>;
  /** Nodeinfo discovery answers per instance (drop-in mode). */
  readonly nodeinfo: NodeinfoCache;
  /** Called after the instance answered a forwarded request (interaction logging). */
  readonly onForwarded?: (event: ForwardedEvent) => Promise<void> | void;
  /** Whether a client id is one of the service's own OAuth clients (drop-in mode answers their `/oauth/*` calls itself). */
  readonly ownOAuthClient?: (clientId: string) => Promise<boolean>;
}

export interface ForwardedEvent {
  readonly method: string;
  readonly path: string;
  readonly identity: AuthenticatedIdentity | undefined;
  readonly instance: InstanceAddress;
  readonly response: ProxyResponse;
}

/** The bearer token of a request, if it sent one. */
function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

function instanceHeader(request: FastifyRequest): string | undefined {
  const value = request.headers['x-social-instance'];
  return typeof value === 'string' ? value : undefined;
}

/** Keeps bodies as bytes, whatever their type (this plugin's routes only: it is encapsulated). */
function rawBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
}

/** The instance a request is forwarded to (see `send` for what happens without one). */
function targetInstance(options: ProxyRouteOptions, request: FastifyRequest, identity: AuthenticatedIdentity | undefined): InstanceAddress {
  const instance = options.identities.instanceFor(instanceHeader(request));
  if (instance) return instance;
  // Drop-in mode without an instance to forward to is the app's own 404 (nothing here serves the path).
  if (identity === undefined || identity.source !== 'social') {
    throw new NotFoundError(`No route for ${request.method} ${request.url.split('?')[0] ?? ''}`);
  }
  throw new ValidationError('No social instance: send X-Social-Instance (no default instance is configured)', 'X-Social-Instance');
}

/** Sends the instance's answer on (its status, headers merged into the service's own, body). */
function relay(reply: FastifyReply, response: ProxyResponse): FastifyReply {
  reply.code(response.status);
  for (const [name, value] of Object.entries(response.headers)) {
    // The service's own Vary (CORS with listed origins: Origin) stays, the instance's added to it.
    const own = name === 'vary' ? reply.getHeader('vary') : undefined;
    reply.header(name, own === undefined ? value : [own, value].flat().join(', '));
  }
  return reply.send(response.body);
}

async function send(
  options: ProxyRouteOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
  query: string,
  identity: AuthenticatedIdentity | undefined,
): Promise<FastifyReply> {
  const instance = targetInstance(options, request, identity);
  const token = identity?.source === 'social' ? bearerToken(request) : undefined;
  const response = await options.proxy.forward(instance, {
    method: request.method,
    path,
    query,
    headers: request.headers,
    body: Buffer.isBuffer(request.body) ? request.body : undefined,
    token,
  });
  if (options.onForwarded) {
    try {
      await options.onForwarded({ method: request.method.toUpperCase(), path, identity, instance, response });
    } catch (error) {
      request.log.warn({ err: error, path }, 'proxy: recording the forwarded request failed');
    }
  }
  return relay(reply, response);
}

/** The `/api/v1/proxy/*` routes: GET (read scope) and the writing methods (write scope), social tokens only. */
export async function proxyRoutes(app: FastifyInstance, options: ProxyRouteOptions): Promise<void> {
  rawBodies(app);
  const methods = [
    { method: 'GET', scope: 'read', operationId: 'proxyGet' },
    { method: 'POST', scope: 'write', operationId: 'proxyPost' },
    { method: 'PUT', scope: 'write', operationId: 'proxyPut' },
    { method: 'PATCH', scope: 'write', operationId: 'proxyPatch' },
    { method: 'DELETE', scope: 'write', operationId: 'proxyDelete' },
  ] as const;
  for (const { method, scope, operationId } of methods) {
    app.route({
      method,
      url: `${PROXY_PREFIX}/*`,
      config: { access: { scope } },
      schema: {
        tags: ['proxy'],
        summary: `${method} forwarded to the same path on the caller's social instance, with the caller's Mastodon token`,
        description:
          '`/api/v1/proxy/api/v1/statuses/1/favourite` is `/api/v1/statuses/1/favourite` on the instance. Query and body ' +
          "are forwarded unchanged; the instance's status, body, Content-Type, Link and X-RateLimit-* come back unchanged. " +
          "Cookies, credentials other than the caller's token and hop-by-hop headers are not forwarded either way. " +
          'A service token is 403 (it has no instance token); an instance that cannot be reached is 503.',
        operationId,
      },
      handler: async (request, reply) => {
        const identity = request.identity;
        if (identity.kind !== 'authenticated') throw new AuthenticationError('A bearer token is required');
        if (identity.source !== 'social') {
          throw new ForbiddenError('The proxy forwards Mastodon tokens only: a service token has no instance token to forward');
        }
        const { path, query } = splitProxiedUrl(request.url, PROXY_PREFIX);
        return send(options, request, reply, path, query, identity);
      },
    });
  }
}

/**
 * Drop-in mode: a not-found handler for each Mastodon API prefix (and the nodeinfo
 * document), so requests no route of the service matches are forwarded; any other path
 * keeps the app's own 404. A social identity's token is forwarded; a request without a
 * token goes without one (`/api/v1/instance`, app registration and the OAuth login are
 * public on Mastodon); a token the service could not verify is 401; a service token is
 * forwarded without credentials. With no instance to forward to (no X-Social-Instance
 * and no default instance) the answer is the app's own 404, as without drop-in mode.
 *
 * The method rule: a path the service routes for some method is the service's own for
 * every method. A method it does not implement there (`POST /api/v1/timelines/home`,
 * `DELETE /api/v1/recommendations`, `PUT /api/v1/timelines/tag/x`) gets the app's own 404
 * in the spec's error body, exactly as without drop-in mode, and is never forwarded with
 * the caller's token. Nothing is lost for Mastodon clients: the Mastodon paths the service
 * shadows (home, public and tag timelines) are GET-only on Mastodon too, and a Mastodon
 * path the service does not route (`/api/v1/timelines/list/1`, `/api/v1/statuses/1`)
 * is still forwarded, whatever its method.
 */
export async function dropInRoutes(app: FastifyInstance, options: ProxyRouteOptions): Promise<void> {
  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const identity = request.identity;
    if (identity.kind === 'anonymous' && identity.rejectedToken) {
      throw request.tokenRejection ?? new AuthenticationError('The bearer token is invalid, expired or revoked');
    }
    const { path, query } = splitProxiedUrl(request.url, '');
    const own = await answerOwnOAuth(options.ownOAuthClient, request, reply, path, query);
    if (own !== undefined) return own;
    return send(options, request, reply, path, query, identity.kind === 'authenticated' ? identity : undefined);
  };
  const notFoundHandler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const path = splitProxiedUrl(request.url, '').path;
    if (ownedByService(request.server, path)) throw new NotFoundError(`No route for ${request.method} ${path}`);
    return handler(request, reply);
  };
  for (const prefix of DROP_IN_PREFIXES) {
    await app.register(
      async (scope) => {
        rawBodies(scope);
        scope.setNotFoundHandler(notFoundHandler);
      },
      { prefix },
    );
  }
  await app.register(async (scope) => {
    rawBodies(scope);
    scope.get(
      NODEINFO_PATH,
      {
        config: { access: 'public' },
        schema: {
          tags: ['proxy'],
          summary: "Drop-in mode: the social instance's nodeinfo discovery document",
          description:
            "Asked without the caller's credentials and kept per instance for a few minutes; limited like any anonymous request.",
          operationId: 'proxyNodeinfo',
        },
      },
      async (request, reply) => {
        const identity = request.identity;
        const instance = targetInstance(options, request, identity.kind === 'authenticated' ? identity : undefined);
        return relay(reply, await options.nodeinfo.get(instance));
      },
    );
  });
}
