/**
 * Verifies service tokens with a cache in front of the database: every authenticated
 * request needs its token checked, and the lookup (hash, query) was about 7% of an
 * interaction write's cost. Revocation stays immediate:
 * - a token revoked or changed by another process (`recsvc token revoke` on the same
 *   database file) is noticed through `externalWrites` (SQLite's data_version), which
 *   empties the cache before the next lookup;
 * - writers inside this process (the OAuth flow, later) call `forget()` after writing;
 * - expiry is checked on every use, cached or not.
 * Only live tokens are cached, so a token created after a miss is found at once.
 * The cache is keyed by the token as sent, so a cached token costs no SHA-256 (about 3% of a
 * warm recommendation's CPU, issue 27): it holds only tokens that verified, as the process
 * already holds them in each request, and forgets them as the identities go.
 */
import type { Kysely } from 'kysely';
import type { AuthenticatedIdentity } from '../../../src/auth/identity.js';
import { LruCache } from '../../../src/lru-cache.js';
import type { Database } from '../db/database.js';
import { hashToken, identityOfRow, looksLikeServiceToken } from './token.service.js';
import { findTokenByHash } from './token.repository.js';

interface CachedToken {
  identity: AuthenticatedIdentity;
  expiresAtMs: number | null;
}

export class ServiceTokenVerifier {
  private readonly cache: LruCache<string, CachedToken>;
  private seenWrites: number;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly externalWrites: () => number,
    capacity = 10_000,
  ) {
    this.cache = new LruCache(capacity);
    this.seenWrites = externalWrites();
  }

  /** The identity of a live token; undefined for unknown, revoked or expired tokens. */
  async verify(token: string, nowMs = Date.now()): Promise<AuthenticatedIdentity | undefined> {
    if (!looksLikeServiceToken(token)) return undefined;
    const writes = this.externalWrites();
    if (writes !== this.seenWrites) {
      this.cache.clear();
      this.seenWrites = writes;
    }
    let entry = this.cache.get(token);
    if (entry === undefined) {
      const row = await findTokenByHash(this.db, hashToken(token));
      if (!row || row.revoked_at !== null) return undefined;
      entry = { identity: identityOfRow(row), expiresAtMs: row.expires_at === null ? null : Date.parse(row.expires_at) };
      this.cache.set(token, entry);
    }
    if (entry.expiresAtMs !== null && entry.expiresAtMs <= nowMs) return undefined;
    return entry.identity;
  }

  /** Drops every cached token (call after this process writes to the tokens table). */
  forget(): void {
    this.cache.clear();
  }
}
