/**
 * Human output of `token list`: one row per token in at most 80 terminal columns
 * (the box adds 19 to the 61 the cells may use), so ids are shortened to the prefix
 * `token revoke` accepts and long labels and users are cut. `--json` has everything.
 */
import { TOKEN_ID_PREFIX_LENGTH, type TokenInfo } from '../../server/platform/auth/token.service.js';
import { formatTimeUntil, truncate } from '../support/format.js';
import { renderTable } from '../support/output.js';

/** Widest cell per column: 8 + 12 + 16 + 7 + 10 + 8 = 61. */
const WIDTH = { id: TOKEN_ID_PREFIX_LENGTH, label: 12, scopes: 16, tier: 7, user: 10, expires: 8 } as const;

const TIER_SHORT: Record<string, string> = { authenticated: 'auth', premium: 'premium' };

/** The token table, or a sentence when there is none. */
export function renderTokenList(tokens: TokenInfo[], all: boolean, now: Date): string {
  if (tokens.length === 0) return all ? 'No tokens.' : 'No live tokens (--all shows revoked and expired ones).';
  const rows = tokens.map((token) => [
    token.id.slice(0, WIDTH.id),
    truncate(token.label ?? '', WIDTH.label),
    truncate(token.scopes.join(','), WIDTH.scopes),
    truncate(TIER_SHORT[token.tier] ?? token.tier, WIDTH.tier),
    truncate(token.user_id ?? '-', WIDTH.user),
    truncate(expiresCell(token, now), WIDTH.expires),
  ]);
  return renderTable(['id', 'label', 'scopes', 'tier', 'user', 'expires'], rows);
}

/** When a live token expires; a dead one's state instead. */
function expiresCell(token: TokenInfo, now: Date): string {
  if (token.state !== 'live') return token.state;
  return token.expires_at === null ? 'never' : formatTimeUntil(new Date(token.expires_at), now);
}
