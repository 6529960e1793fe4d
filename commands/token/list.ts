/** `recsvc token list`. */
import type { Command } from 'commander';
import type { TokenListOptions } from './token.actions.js';

/** Registers `token list`. */
export function registerTokenList(token: Command): void {
  token
    .command('list')
    .description('list live tokens (never their secrets); --all adds revoked and expired ones')
    .option('--all', 'every token, with "revoked" or "expired" in the expires column for dead ones')
    .option('--db <path|url>', 'SQLite database file or postgres:// URL (env RECSVC_DATABASE_URL or RECSVC_DB, default ./recsvc.db)')
    .option('--json', 'print every field (full id, created_at, expires_at, revoked_at, state) as JSON')
    .addHelpText(
      'after',
      `
The table fits 80 columns: ids are shortened to their first 8 characters (which
\`token revoke\` accepts), long labels and users are cut with …, tier "auth" means
authenticated, and expires is relative ("in 23h", "never"). --json has the full data.

Examples:
  $ recsvc token list
  $ recsvc token list --all
  $ recsvc token list --all --json | jq -r '.[] | select(.state == "expired") | .id'`,
    )
    .action(async (options: TokenListOptions) => {
      const { runTokenList } = await import('./token.actions.js');
      await runTokenList(options);
    });
}
