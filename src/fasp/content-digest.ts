/**
 * RFC 9530 `Content-Digest` with SHA-256, the only algorithm FASP uses: the header is a
 * structured-field dictionary, `sha-256=:<base64 of SHA-256 of the raw body bytes>:`.
 */
import { createHash } from 'node:crypto';
import { parseDictionary } from './structured-fields.js';

/** The `Content-Digest` value of `body` (an empty body has the digest of zero bytes). */
export function contentDigest(body: Uint8Array | string | undefined): string {
  return `sha-256=:${createHash('sha256')
    .update(body ?? '')
    .digest('base64')}:`;
}

/** Whether the header carries a `sha-256` member equal to the body's digest (false when absent or malformed). */
export function contentDigestMatches(header: string | undefined, body: Uint8Array | string | undefined): boolean {
  if (header === undefined) return false;
  const members = parseDictionary(header);
  const member = members?.get('sha-256');
  if (member === undefined || !(member.value instanceof Uint8Array)) return false;
  const expected = createHash('sha256')
    .update(body ?? '')
    .digest();
  return Buffer.from(member.value).equals(expected);
}
