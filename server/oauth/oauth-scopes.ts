/**
 * OAuth scopes: Mastodon's vocabulary, so that Mastodon clients can ask for what they ask
 * their instance for (`read write follow push`, or granular `read:statuses`), mapped onto
 * the service's own scopes. `read` and `read:*` grant `read`; `write`, `write:*` and `follow`
 * grant `write`; `push` and `profile` grant nothing here. `admin` is never granted through
 * OAuth (operator tokens come from `recsvc token create`).
 */
import type { Scope } from '../../src/auth/identity.js';
import { OAuthError } from './oauth-errors.js';

/** The top-level scopes a client may register and request (granular `read:x`/`write:x` too). */
export const SUPPORTED_SCOPES = ['read', 'write', 'follow', 'push', 'profile'] as const;
const GRANULAR = /^(read|write):[a-z_]{1,32}$/;
const MAX_SCOPES = 40;

/** The scope used when an authorization request names none (Mastodon's default). */
export const DEFAULT_SCOPE = 'read';

/** Parses a space-separated scope list into unique scopes in their first order; invalid_scope on an unknown one. */
export function parseScopeList(text: string): string[] {
  const scopes = [...new Set(text.split(/[ +]+/).filter((part) => part.length > 0))];
  if (scopes.length === 0) throw new OAuthError('invalid_scope', 'scope must name at least one scope');
  if (scopes.length > MAX_SCOPES) throw new OAuthError('invalid_scope', `scope names more than ${MAX_SCOPES} scopes`);
  for (const scope of scopes) {
    if (scope === 'admin' || scope.startsWith('admin:')) {
      throw new OAuthError('invalid_scope', `"${scope}" is not granted through OAuth (operator tokens come from recsvc token create)`);
    }
    if (!(SUPPORTED_SCOPES as readonly string[]).includes(scope) && !GRANULAR.test(scope)) {
      throw new OAuthError('invalid_scope', `unknown scope "${scope}" (supported: ${SUPPORTED_SCOPES.join(', ')}, read:*, write:*)`);
    }
  }
  return scopes;
}

/** True when `scope` is allowed by `granted`: listed itself, or granted through its parent (`read` covers `read:statuses`). */
function covered(scope: string, granted: readonly string[]): boolean {
  if (granted.includes(scope)) return true;
  const parent = scope.split(':')[0]!;
  return parent !== scope && granted.includes(parent);
}

/** invalid_scope unless every requested scope is within `granted`. */
export function requireWithin(requested: readonly string[], granted: readonly string[], grantedBy: string): void {
  const outside = requested.filter((scope) => !covered(scope, granted));
  if (outside.length > 0)
    throw new OAuthError('invalid_scope', `${outside.join(' ')} exceeds the scopes ${grantedBy} (${granted.join(' ')})`);
}

/** The service scopes a list of OAuth scopes grants; invalid_scope when it grants neither read nor write. */
export function serviceScopes(scopes: readonly string[]): Scope[] {
  const out = new Set<Scope>();
  for (const scope of scopes) {
    const parent = scope.split(':')[0];
    if (parent === 'read') out.add('read');
    if (parent === 'write' || parent === 'follow') out.add('write');
  }
  if (out.size === 0) throw new OAuthError('invalid_scope', 'scope must include read or write (or a granular read:* / write:* scope)');
  return [...out].sort();
}
