/**
 * Turns a bearer token into an Identity. Providers are tried in order; the social
 * instance provider (Mastodon tokens with X-Social-Instance) and OAuth-issued
 * tokens plug in here without touching routes.
 */
import type { AuthenticatedIdentity } from '../../src/auth/identity.js';
import type { ServiceTokenVerifier } from './service-token-verifier.js';

export interface TokenContext {
  /** The `X-Social-Instance` header, when sent. */
  readonly socialInstance: string | undefined;
}

export interface IdentityProvider {
  readonly name: string;
  /** The identity for this token, or undefined when this provider does not vouch for it. */
  resolve(token: string, context: TokenContext): Promise<AuthenticatedIdentity | undefined>;
}

/** Tokens minted by this service (CLI now, OAuth flow later). */
export function serviceTokenProvider(verifier: ServiceTokenVerifier): IdentityProvider {
  return { name: 'service', resolve: (token) => verifier.verify(token) };
}

/** Asks each provider in turn; undefined when none vouches for the token. */
export async function resolveToken(
  providers: readonly IdentityProvider[],
  token: string,
  context: TokenContext,
): Promise<AuthenticatedIdentity | undefined> {
  for (const provider of providers) {
    const identity = await provider.resolve(token, context);
    if (identity) return identity;
  }
  return undefined;
}
