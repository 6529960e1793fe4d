/** `recsvc token revoke <id>`. */
import type { Command } from 'commander';

/** Registers `token revoke`. */
export function registerTokenRevoke(token: Command): void {
  token
    .command('revoke')
    .description('revoke a token by its id (from `token list`)')
    .argument('<id>', 'token id')
    .option('--db <path>', 'SQLite database file (env RECSVC_DB, default ./recsvc.db)')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { db?: string; json?: boolean }) => {
      const { runTokenRevoke } = await import('./token.actions.js');
      await runTokenRevoke(id, options);
    });
}
