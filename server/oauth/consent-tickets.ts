/**
 * Consent tickets: the one-time secret the consent page's form carries back. Only its
 * SHA-256 is stored, with the authorization it stands for (client, redirect URI, scopes,
 * PKCE challenge, user); it expires in minutes, and one UPDATE spends it, so of any number
 * of answers with it exactly one gets the authorization.
 */
import { randomBytes } from 'node:crypto';
import { hashToken } from '../platform/auth/token.service.js';
import { OAuthError } from './oauth-errors.js';
import {
  consumeConsent,
  deleteConsentsExpiredBefore,
  findConsent,
  insertConsent,
  type ConsentRow,
  type OAuthDb,
} from './oauth.repository.js';

/** The authorization a ticket stands for. */
export type PendingConsent = Omit<ConsentRow, 'ticket_hash' | 'created_at_ms' | 'expires_at_ms' | 'used_at_ms'>;

/**
 * Stores a pending consent and returns its ticket (shown once, in the page). Tickets that
 * expired before `purgeBeforeMs` go first, as logins and codes do.
 */
export async function openConsent(
  db: OAuthDb,
  pending: PendingConsent,
  timing: { nowMs: number; ttlSeconds: number; purgeBeforeMs: number },
): Promise<string> {
  const ticket = randomBytes(32).toString('base64url');
  await deleteConsentsExpiredBefore(db, timing.purgeBeforeMs);
  await insertConsent(db, {
    ...pending,
    ticket_hash: hashToken(ticket),
    created_at_ms: timing.nowMs,
    expires_at_ms: timing.nowMs + timing.ttlSeconds * 1000,
    used_at_ms: null,
  });
  return ticket;
}

/** Spends a ticket and returns its authorization; OAuthError saying why (unknown, answered, expired) otherwise. */
export async function spendConsent(db: OAuthDb, ticket: string, nowMs: number): Promise<ConsentRow> {
  const ticketHash = hashToken(ticket);
  const consent = await consumeConsent(db, ticketHash, nowMs);
  if (consent) return consent;
  const row = await findConsent(db, ticketHash);
  if (!row) throw new OAuthError('invalid_request', 'This consent ticket is unknown: start again from the app');
  if (row.used_at_ms !== null) throw new OAuthError('invalid_request', 'This consent was already answered: start again from the app');
  throw new OAuthError('invalid_request', 'This consent page has expired: start again from the app');
}

/** An account as people write it: `@name@instance` (a local account's `acct` has no host). */
export function accountHandle(acct: string, instance: string): string {
  const name = acct.replace(/^@/, '');
  return `@${name.includes('@') ? name : `${name}@${instance}`}`;
}
