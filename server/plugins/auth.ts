/**
 * Resolves every request's Identity from its bearer token before rate limiting,
 * and registers the access rules (./access.ts) that answer 401 (no valid
 * credentials) or 403 (valid but not allowed) from each route's declared rule.
 * Tokens never reach the logs.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ANONYMOUS, REJECTED, type AnonymousIdentity, type Identity } from '../../src/auth/identity.js';
import { resolveToken, type IdentityProvider } from '../auth/identity-providers.js';
import { registerAccessRules } from './access.js';

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
  // Routes added from here on get their declared rule enforced.
  registerAccessRules(app);
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

export const authPlugin = fp(auth, { name: 'auth' });
