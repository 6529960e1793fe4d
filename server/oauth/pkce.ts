/** PKCE (RFC 7636) with the S256 method only: `plain` would show the verifier to anyone who sees the redirect. */
import { createHash, timingSafeEqual } from 'node:crypto';

/** What an S256 challenge looks like: base64url of a SHA-256 digest, without padding. */
export const CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** A verifier: 43 to 128 unreserved characters (RFC 7636 §4.1). */
export const VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;

/** The S256 challenge of a verifier. */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** True when the verifier is well formed and its S256 challenge is `challenge` (compared in constant time). */
export function verifierMatches(verifier: string | undefined, challenge: string): boolean {
  if (verifier === undefined || !VERIFIER_PATTERN.test(verifier)) return false;
  const expected = Buffer.from(challenge, 'ascii');
  const actual = Buffer.from(s256Challenge(verifier), 'ascii');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
