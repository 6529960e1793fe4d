/**
 * Where a federated object comes from: the host of its ActivityPub `uri`. A status or account
 * is its `uri`; only the instance at that host (its origin) may say what it contains
 * (decisions.md, "A post is its ActivityPub uri").
 */

/** The host (`host[:port]`, lowercase, the port only when not the scheme's default) of an http(s) URI; '' when it is not one. */
export function originHostOf(uri: string | null | undefined): string {
  if (typeof uri !== 'string' || uri === '') return '';
  try {
    const url = new URL(uri);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.host.toLowerCase() : '';
  } catch {
    return '';
  }
}

/** Whether `instance` (canonical `host[:port]`) is the origin of the object at `uri`. */
export function isOriginOf(instance: string, uri: string | null | undefined): boolean {
  const host = originHostOf(uri);
  return host !== '' && host === instance.toLowerCase();
}

/**
 * An account's `acct` as a reader on `readerInstance` should see it: `username` alone for an
 * account of the reader's own instance, `username@domain` for every other (Mastodon's rule);
 * without a reader, always with the domain. `domain` is the account's own (from its stored
 * acct, else the host of its uri).
 */
export function acctFor(username: string, domain: string, readerInstance: string | undefined): string {
  if (domain === '') return username;
  return readerInstance !== undefined && domain === readerInstance.toLowerCase() ? username : `${username}@${domain}`;
}

/** The domain part of an `acct` (`user@domain`), else the host of the account's uri. */
export function accountDomain(acct: string, uri: string): string {
  const at = acct.indexOf('@');
  return at >= 0 ? acct.slice(at + 1).toLowerCase() : originHostOf(uri);
}

/** A Mastodon-style id (milliseconds << 16 | low 16 bits of a hash of the uri, plus `attempt`) for an object first seen at `uri`. */
export function idForUri(createdAtMs: number, uri: string, attempt = 0): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < uri.length; i++) hash = Math.imul(hash ^ uri.charCodeAt(i), 0x01000193);
  const low = BigInt(((hash >>> 0) + attempt) & 0xffff);
  return ((BigInt(Math.max(0, Math.floor(createdAtMs))) << 16n) | low).toString();
}
