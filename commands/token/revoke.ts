/** `recsvc token revoke <id>`. */
import type { Command } from 'commander';

/** Registers `token revoke`. */
export function registerTokenRevoke(token: Command): void {
  token
    .command('revoke')
    .description('revoke a token by its id (from `token list`)')
    .argument('<id>', 'token id, or its first 8 or more characters as `token list` shows them')
    .option('--db <path|url>', 'SQLite database file or postgres:// URL (env RECSVC_DATABASE_URL or RECSVC_DB, default ./recsvc.db)')
    .option('--json', 'print {"id": <full id>, "revoked": true}')
    .addHelpText(
      'after',
      `
A prefix must name exactly one token. The server refuses the token from its next request.

Examples:
  $ recsvc token list
  $ recsvc token revoke 3f2a9c1e`,
    )
    .action(async (id: string, options: { db?: string; json?: boolean }) => {
      const { runTokenRevoke } = await import('./token.actions.js');
      await runTokenRevoke(id, options);
    });
}
