/**
 * Who is calling. Every request resolves to one Identity before rate limiting, so
 * limits key on the caller and handlers decide 401 versus 403 from it.
 */

/** Permission scopes: `read`/`write` a user's own data, `admin` everything else. */
export const SCOPES = ['read', 'write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** Rate-limit tier of a caller (spec, Limits). */
export const TIERS = ['anonymous', 'authenticated', 'premium'] as const;
export type Tier = (typeof TIERS)[number];

/** Where a bearer token came from: this service's own tokens, or a social instance. */
export type TokenSource = 'service' | 'social';

export interface AnonymousIdentity {
  readonly kind: 'anonymous';
  /** Set when a token was presented but is unknown, expired or revoked. */
  readonly rejectedToken: boolean;
}

export interface AuthenticatedIdentity {
  readonly kind: 'authenticated';
  /** The user the token acts for; `null` for operator tokens not bound to a user. */
  readonly userId: string | null;
  readonly scopes: ReadonlySet<Scope>;
  readonly tier: Exclude<Tier, 'anonymous'>;
  readonly source: TokenSource;
  /** Stable key for rate limiting and logs (never the token itself). */
  readonly subjectKey: string;
}

export type Identity = AnonymousIdentity | AuthenticatedIdentity;

/** The identity of a caller without credentials. */
export const ANONYMOUS: AnonymousIdentity = Object.freeze({ kind: 'anonymous', rejectedToken: false });

/** The identity of a caller whose token could not be verified. */
export const REJECTED: AnonymousIdentity = Object.freeze({ kind: 'anonymous', rejectedToken: true });

/** Rate-limit tier of an identity. */
export function tierOf(identity: Identity): Tier {
  return identity.kind === 'anonymous' ? 'anonymous' : identity.tier;
}

/** True when the identity holds the scope; `admin` implies `read` and `write`. */
export function hasScope(identity: Identity, scope: Scope): boolean {
  if (identity.kind === 'anonymous') return false;
  return identity.scopes.has(scope) || identity.scopes.has('admin');
}

/** Parses a comma-separated scope list such as `read,write`; throws on an unknown scope. */
export function parseScopes(text: string): Scope[] {
  const parts = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  if (parts.length === 0) throw new Error('at least one scope is required (read, write, admin)');
  for (const part of parts) {
    if (!(SCOPES as readonly string[]).includes(part)) {
      throw new Error(`unknown scope "${part}" (expected read, write or admin)`);
    }
  }
  return [...new Set(parts as Scope[])];
}
