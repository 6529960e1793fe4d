/**
 * Fediverse-aware identity for experiments (issue 13): the id a user is bucketed and keyed by.
 * `@Alice@Mastodon.Social`, `alice@mastodon.social` and `acct:alice@mastodon.social` are one
 * account, so they must be one user. The rule:
 *
 * 1. Leading `acct:` (any case, the WebFinger URI scheme) and `@` (mention syntax) are
 *    stripped, repeatedly (`acct:@alice@host` too): neither is ever part of an account.
 * 2. What is left is a handle when it is `user@host` with exactly one `@`, a non-empty user
 *    without spaces, and a host of letters, digits, dots, hyphens (and an optional `:port`).
 *    A handle is lowercased WHOLE: hosts are case-insensitive (DNS) and so are Mastodon
 *    usernames (Mastodon keeps them unique case-insensitively, and WebFinger resolves
 *    `acct:Alice@host` to `alice`). A trailing dot of the host (`host.`) is dropped.
 * 3. Anything else — a bare local id such as `user42`, an opaque or numeric id — stays
 *    exactly as it was after step 1, case included: a local id is the deployment's own
 *    key and may be case-sensitive.
 *
 * So an id already in canonical form (lowercase handle, or a local id with no leading `@` or
 * `acct:`) is returned unchanged, and its bucket under the spec's assignment rule is the same
 * as before canonicalisation existed. The function is idempotent.
 */

const HANDLE = /^([^@\s]+)@([A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?\.?(?::\d{1,5})?)$/;

/** The instance label of users whose canonical id is a bare local id. */
export const LOCAL_INSTANCE = 'local';

function stripPrefixes(id: string): string {
  let rest = id;
  for (;;) {
    if (rest.startsWith('@')) rest = rest.slice(1);
    else if (rest.length >= 5 && rest.slice(0, 5).toLowerCase() === 'acct:') rest = rest.slice(5);
    else return rest;
  }
}

/** The canonical form of a user id (see the module comment for the rule); an id that would become empty is kept as given. */
export function canonicalUserId(userId: string | number): string {
  const id = String(userId);
  // Fast path for the common local id: no `@`, and cannot start with `acct:`.
  const first = id.charCodeAt(0);
  if (id.indexOf('@') === -1 && first !== 0x61 && first !== 0x41) return id;
  const rest = stripPrefixes(id);
  if (rest === '') return id;
  const match = HANDLE.exec(rest);
  if (match === null) return rest;
  const host = (match[2] as string).toLowerCase().replace(/\.(?=:|$)/, '');
  return `${(match[1] as string).toLowerCase()}@${host}`;
}

/** The instance of a user: the host of a canonical handle (`mastodon.social`), else `localLabel` for a bare local id. */
export function instanceOfUser(userId: string | number, localLabel: string = LOCAL_INSTANCE): string {
  const canonical = canonicalUserId(userId);
  const match = HANDLE.exec(canonical);
  return match === null ? localLabel : (match[2] as string);
}
