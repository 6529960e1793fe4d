/**
 * Service tokens: minted by `recsvc token create` (and, later, the OAuth flow),
 * shown once, stored as a SHA-256 hash, verified on every request.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AuthenticatedIdentity, Scope, Tier } from '../../../src/auth/identity.js';
import { NotFoundError, ValidationError } from '../../../src/errors.js';
import type { Database } from '../db/database.js';
import { findTokenIdsByPrefix, insertToken, listTokens, purgeDeadTokens, revokeToken, type TokenRow } from './token.repository.js';

const TOKEN_PREFIX = 'rsv_';

export interface NewToken {
  scopes: Scope[];
  tier: Exclude<Tier, 'anonymous'>;
  userId: string | null;
  /** Lifetime in seconds; `null` for a token that never expires. */
  ttlSeconds: number | null;
  label?: string;
}

/** Whether a token is accepted now: `live`, or dead because `revoked` or `expired`. */
export type TokenState = 'live' | 'revoked' | 'expired';

/** The shortest id prefix `token revoke` accepts: what `token list` shows. */
export const TOKEN_ID_PREFIX_LENGTH = 8;

export interface TokenInfo {
  id: string;
  user_id: string | null;
  scopes: Scope[];
  tier: string;
  label: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  state: TokenState;
}

/** SHA-256 of a bearer token: the only form in which tokens are stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** True when the text has the shape of a service token (cheap pre-check before a lookup). */
export function looksLikeServiceToken(token: string): boolean {
  return token.startsWith(TOKEN_PREFIX);
}

/** Mints a token; returns the secret (shown once) and its stored description. */
export async function createToken(db: Kysely<Database>, spec: NewToken, now = new Date()): Promise<{ token: string; info: TokenInfo }> {
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const row: TokenRow = {
    id: randomUUID(),
    token_hash: hashToken(token),
    user_id: spec.userId,
    scopes: spec.scopes.join(','),
    tier: spec.tier,
    label: spec.label ?? null,
    created_at: now.toISOString(),
    expires_at: spec.ttlSeconds === null ? null : new Date(now.getTime() + spec.ttlSeconds * 1000).toISOString(),
    revoked_at: null,
  };
  await insertToken(db, row);
  return { token, info: toInfo(row, now) };
}

/** The identity a token row grants (whether it is live is the caller's question). */
export function identityOfRow(row: TokenRow): AuthenticatedIdentity {
  return {
    kind: 'authenticated',
    userId: row.user_id,
    scopes: new Set(row.scopes.split(',') as Scope[]),
    tier: row.tier === 'premium' ? 'premium' : 'authenticated',
    source: 'service',
    subjectKey: `token:${row.id}`,
  };
}

/** Tokens' descriptions (never the secret), newest first: the live ones, or with `all` every token. */
export async function listTokenInfos(db: Kysely<Database>, options: { all?: boolean; now?: Date } = {}): Promise<TokenInfo[]> {
  const now = options.now ?? new Date();
  const rows = await listTokens(db, options.all === true ? {} : { liveAt: now.toISOString() });
  return rows.map((row) => toInfo(row, now));
}

/**
 * Revokes a token by its id or a unique prefix of it (at least TOKEN_ID_PREFIX_LENGTH characters,
 * as `token list` shows); returns the full id. NotFoundError when no live token matches,
 * ValidationError when the prefix is too short or names several tokens.
 */
export async function revokeTokenById(db: Kysely<Database>, idOrPrefix: string, now = new Date()): Promise<string> {
  const id = await resolveTokenId(db, idOrPrefix);
  if (!(await revokeToken(db, id, now.toISOString()))) {
    throw new NotFoundError(`No live token with id ${idOrPrefix}`);
  }
  return id;
}

async function resolveTokenId(db: Kysely<Database>, idOrPrefix: string): Promise<string> {
  if (idOrPrefix.length < TOKEN_ID_PREFIX_LENGTH) {
    throw new ValidationError(`token id "${idOrPrefix}" is too short: give at least ${TOKEN_ID_PREFIX_LENGTH} characters`, 'id');
  }
  const matches = await findTokenIdsByPrefix(db, idOrPrefix, 2);
  if (matches.length > 1) throw new ValidationError(`token id "${idOrPrefix}" matches several tokens: give more characters`, 'id');
  return matches[0] ?? idOrPrefix;
}

/** A token's state at `now`: revocation wins over expiry; expired from its expires_at instant on. */
export function tokenState(row: Pick<TokenRow, 'revoked_at' | 'expires_at'>, now: Date): TokenState {
  if (row.revoked_at !== null) return 'revoked';
  if (row.expires_at !== null && Date.parse(row.expires_at) <= now.getTime()) return 'expired';
  return 'live';
}

function toInfo(row: TokenRow, now: Date): TokenInfo {
  return {
    id: row.id,
    user_id: row.user_id,
    scopes: row.scopes.split(',') as Scope[],
    tier: row.tier,
    label: row.label,
    created_at: row.created_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    state: tokenState(row, now),
  };
}

/** Deletes tokens that expired or were revoked before `cutoff`; returns how many went. */
export async function purgeTokensDeadBefore(db: Kysely<Database>, cutoff: Date): Promise<number> {
  return purgeDeadTokens(db, cutoff.toISOString());
}
