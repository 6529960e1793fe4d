/**
 * Resolves every request's Identity from its bearer token before rate limiting,
 * and registers the access rules (./access.ts) that answer 401 (no valid
 * credentials) or 403 (valid but not allowed) from each route's declared rule.
 * Tokens never reach the logs.
 *
 * A token a provider must ask another server about (a Mastodon token not in its cache)
 * is first charged to the client's address by `tokenCheckLimiter`, which the rate-limit
 * plugin sets: made-up tokens are throttled before they cost an instance call.
 *
 * When the issuer of a token is down (a provider reports an outage), the request fails
 * with the provider's 503, except on routes declaring `config.identityOutage: 'degrade'`
 * (the timelines), which run anyway and answer from the service's own store: as the
 * identity last verified for the token when the provider kept one (`degradedIdentity`
 * 'stale'), else as an unverified caller with no user and only `read`
 * (`degradedIdentity` 'unverified'). A token the issuer refused is never degraded: 401.
 *
 * A provider may refuse a token with its own 401 saying why (a Mastodon token sent without
 * `X-Social-Instance`): the caller is then anonymous with a rejected token, as for any token
 * no provider vouched for (public routes still answer), and `tokenRejection` keeps that
 * 401, which the routes needing credentials answer instead of the generic one.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../../src/errors.js';
import {
  ANONYMOUS,
  REJECTED,
  type AnonymousIdentity,
  type AuthenticatedIdentity,
  type Identity,
  type Scope,
  type TokenSource,
} from '../../../src/auth/identity.js';
import { IdentityOutageError, resolveToken, type IdentityProvider } from '../auth/identity-providers.js';
import { registerAccessRules } from './access.js';

/** How a request's identity was obtained while its token's issuer was down. */
export type DegradedIdentity = 'stale' | 'unverified';

declare module 'fastify' {
  interface FastifyRequest {
    identity: Identity;
    /** Set when the identity could not be verified now (issuer down) on a route that degrades. */
    degradedIdentity: DegradedIdentity | undefined;
    /** A provider's own 401 for the token (why it was refused), when it gave one. */
    tokenRejection: AppError | undefined;
  }
  interface FastifyInstance {
    /** Charges a client for a token check that asks another server (set by the rate limiter; null without one). */
    tokenCheckLimiter: ((request: FastifyRequest, reply: FastifyReply) => Promise<void>) | null;
  }
  interface FastifyContextConfig {
    /** `'degrade'`: the route still runs when the token's issuer is down (see server/platform/plugins/auth.ts). */
    identityOutage?: 'degrade';
  }
}

export interface AuthPluginOptions {
  providers: readonly IdentityProvider[];
}

const UNVERIFIED_SCOPES: ReadonlySet<Scope> = new Set<Scope>(['read']);

/** The bearer token of a request, if it sent one. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** A caller whose token could not be checked: no user, `read` only, limited by its address. */
function unverifiedIdentity(request: FastifyRequest, source: TokenSource): AuthenticatedIdentity {
  return {
    kind: 'authenticated',
    userId: null,
    scopes: UNVERIFIED_SCOPES,
    tier: 'authenticated',
    source,
    subjectKey: `unverified:ip:${request.ip}`,
  };
}

async function auth(app: FastifyInstance, options: AuthPluginOptions): Promise<void> {
  app.decorateRequest('identity', null as unknown as AnonymousIdentity);
  app.decorateRequest('degradedIdentity', undefined);
  app.decorateRequest('tokenRejection', undefined);
  app.decorate('tokenCheckLimiter', null);
  // Routes added from here on get their declared rule enforced.
  registerAccessRules(app);
  app.addHook('onRequest', async (request, reply) => {
    const token = bearerToken(request);
    if (token === undefined) {
      request.identity = request.headers.authorization === undefined ? ANONYMOUS : REJECTED;
      return;
    }
    const instance = request.headers['x-social-instance'];
    const limiter = app.tokenCheckLimiter;
    const context = {
      socialInstance: typeof instance === 'string' ? instance : undefined,
      beforeRemoteCheck: limiter ? () => limiter(request, reply) : undefined,
    };
    try {
      request.identity = (await resolveToken(options.providers, token, context)) ?? REJECTED;
    } catch (error) {
      if (error instanceof AppError && error.statusCode === 401) {
        request.identity = REJECTED;
        request.tokenRejection = error;
        return;
      }
      if (!(error instanceof IdentityOutageError)) throw error;
      if (request.routeOptions.config.identityOutage !== 'degrade') throw error.failure;
      const { lastVerified, source } = error.outage;
      request.identity = lastVerified ?? unverifiedIdentity(request, source);
      request.degradedIdentity = lastVerified ? 'stale' : 'unverified';
    }
  });
}

export const authPlugin = fp(auth, { name: 'auth' });
