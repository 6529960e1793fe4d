/**
 * Resolves every request's Identity from its bearer token before rate limiting,
 * and gives routes guards that answer 401 (no valid credentials) or 403 (valid
 * but not allowed). Tokens never reach the logs.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ANONYMOUS, REJECTED, hasScope, type AnonymousIdentity, type AuthenticatedIdentity, type Identity, type Scope } from '../../src/auth/identity.js';
import { AuthenticationError, ForbiddenError } from '../../src/errors.js';
import { resolveToken, type IdentityProvider } from '../auth/identity-providers.js';

declare module 'fastify' {
  interface FastifyRequest {
    identity: Identity;
  }
}

export interface AuthPluginOptions {
  providers: readonly IdentityProvider[];
}

/** The bearer token of a request, if it sent one. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

async function auth(app: FastifyInstance, options: AuthPluginOptions): Promise<void> {
  app.decorateRequest('identity', null as unknown as AnonymousIdentity);
  app.addHook('onRequest', async (request) => {
    const token = bearerToken(request);
    if (token === undefined) {
      request.identity = request.headers.authorization === undefined ? ANONYMOUS : REJECTED;
      return;
    }
    const instance = request.headers['x-social-instance'];
    const identity = await resolveToken(options.providers, token, {
      socialInstance: typeof instance === 'string' ? instance : undefined,
    });
    request.identity = identity ?? REJECTED;
  });
}

/** The caller's identity, or 401 when it has no valid credentials. */
export function requireAuthenticated(request: FastifyRequest): AuthenticatedIdentity {
  const identity = request.identity;
  if (identity.kind === 'anonymous') {
    throw new AuthenticationError(identity.rejectedToken ? 'The bearer token is invalid, expired or revoked' : 'A bearer token is required');
  }
  return identity;
}

/** 401 without credentials, 403 without the scope. */
export function requireScope(request: FastifyRequest, scope: Scope): AuthenticatedIdentity {
  const identity = requireAuthenticated(request);
  if (!hasScope(identity, scope)) throw new ForbiddenError(`This operation needs the "${scope}" scope`);
  return identity;
}

/** A user's own data: the token's user with `scope`, or an admin. */
export function requireUserAccess(request: FastifyRequest, userId: string, scope: Scope): AuthenticatedIdentity {
  const identity = requireScope(request, scope);
  if (identity.scopes.has('admin') || identity.userId === userId) return identity;
  throw new ForbiddenError(`This token may not access the data of user ${userId}`);
}

export const authPlugin = fp(auth, { name: 'auth' });
