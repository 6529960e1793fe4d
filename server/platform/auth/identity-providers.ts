/**
 * Turns a bearer token into an Identity. Providers are tried in order; the social
 * instance provider (Mastodon tokens with X-Social-Instance) and OAuth-issued
 * tokens plug in here without touching routes.
 */
import type { AuthenticatedIdentity, TokenSource } from '../../../src/auth/identity.js';
import type { ServiceTokenVerifier } from './service-token-verifier.js';

export interface TokenContext {
  /** The `X-Social-Instance` header, when sent. */
  readonly socialInstance: string | undefined;
  /**
   * Awaited before a provider asks another server about a token its cache cannot answer;
   * throws (429) when the client may not cause one more such call now.
   */
  readonly beforeRemoteCheck?: (() => Promise<void>) | undefined;
}

/** What a provider knows of a token whose issuer is down (see IdentityProvider.outage). */
export interface TokenOutage {
  /** The identity last verified for this token, within the provider's stale bound; undefined: none known. */
  readonly lastVerified: AuthenticatedIdentity | undefined;
  /** Where the token would come from (the source of an unverified caller's identity). */
  readonly source: TokenSource;
}

export interface IdentityProvider {
  readonly name: string;
  /** The identity for this token, or undefined when this provider does not vouch for it. */
  resolve(token: string, context: TokenContext): Promise<AuthenticatedIdentity | undefined>;
  /**
   * After `resolve` threw `error`: when the error means the token's issuer is down (not
   * that it refused the token), what the provider still knows; undefined otherwise.
   */
  outage?(token: string, context: TokenContext, error: unknown): TokenOutage | undefined;
}

/** Tokens minted by this service (CLI now, OAuth flow later). */
export function serviceTokenProvider(verifier: ServiceTokenVerifier): IdentityProvider {
  return { name: 'service', resolve: (token) => verifier.verify(token) };
}

/** A token whose issuer could not be asked: the provider that failed, and what it still knows. */
export class IdentityOutageError extends Error {
  constructor(
    readonly failure: unknown,
    readonly outage: TokenOutage,
  ) {
    super('the token issuer is unavailable');
  }
}

/**
 * Asks each provider in turn; undefined when none vouches for the token. A provider's error
 * goes through, wrapped in IdentityOutageError when that provider reports it as an outage.
 */
export async function resolveToken(
  providers: readonly IdentityProvider[],
  token: string,
  context: TokenContext,
): Promise<AuthenticatedIdentity | undefined> {
  for (const provider of providers) {
    let identity: AuthenticatedIdentity | undefined;
    try {
      identity = await provider.resolve(token, context);
    } catch (error) {
      const outage = provider.outage?.(token, context, error);
      throw outage ? new IdentityOutageError(error, outage) : error;
    }
    if (identity) return identity;
  }
  return undefined;
}
