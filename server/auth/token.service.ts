/**
 * Service tokens: minted by `recsvc token create` (and, later, the OAuth flow),
 * shown once, stored as a SHA-256 hash, verified on every request.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AuthenticatedIdentity, Scope, Tier } from '../../src/auth/identity.js';
import { NotFoundError } from '../../src/errors.js';
import type { Database } from '../db/database.js';
import { insertToken, listTokens, revokeToken, type TokenRow } from './token.repository.js';

const TOKEN_PREFIX = 'rsv_';

export interface NewToken {
  scopes: Scope[];
  tier: Exclude<Tier, 'anonymous'>;
  userId: string | null;
  /** Lifetime in seconds; `null` for a token that never expires. */
  ttlSeconds: number | null;
  label?: string;
}

export interface TokenInfo {
  id: string;
  user_id: string | null;
  scopes: Scope[];
  tier: string;
  label: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
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
  return { token, info: toInfo(row) };
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

/** Every token's description (never the secret). */
export async function listTokenInfos(db: Kysely<Database>): Promise<TokenInfo[]> {
  return (await listTokens(db)).map(toInfo);
}

/** Revokes a token by id; NotFoundError when there is no live token with it. */
export async function revokeTokenById(db: Kysely<Database>, id: string, now = new Date()): Promise<void> {
  if (!(await revokeToken(db, id, now.toISOString()))) {
    throw new NotFoundError(`No live token with id ${id}`);
  }
}

function toInfo(row: TokenRow): TokenInfo {
  return {
    id: row.id,
    user_id: row.user_id,
    scopes: row.scopes.split(',') as Scope[],
    tier: row.tier,
    label: row.label,
    created_at: row.created_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
  };
}
