/** `recsvc token list`. */
import type { Command } from 'commander';

/** Registers `token list`. */
export function registerTokenList(token: Command): void {
  token
    .command('list')
    .description('list tokens (never their secrets)')
    .option('--db <path>', 'SQLite database file (env RECSVC_DB, default ./recsvc.db)')
    .option('--json', 'print JSON')
    .action(async (options: { db?: string; json?: boolean }) => {
      const { runTokenList } = await import('./token.actions.js');
      await runTokenList(options);
    });
}
