/** `recsvc token create`. */
import { Option, type Command } from 'commander';
import type { TokenCreateOptions } from './token.actions.js';

/** Registers `token create`. */
export function registerTokenCreate(token: Command): void {
  token
    .command('create')
    .description('mint a bearer token and print it once')
    .requiredOption('--scopes <list>', 'comma-separated scopes: read, write, admin')
    .addOption(new Option('--tier <tier>', 'rate-limit tier').choices(['authenticated', 'premium']).default('authenticated'))
    .option('--user <id>', 'the user the token acts for (required for read/write of own data)')
    .option('--expires <duration>', 'lifetime such as 30m, 24h, 7d, or "never"', '24h')
    .option('--label <text>', 'a note shown by `token list`')
    .option('--db <path|url>', 'SQLite database file or postgres:// URL (env RECSVC_DATABASE_URL or RECSVC_DB, default ./recsvc.db)')
    .option('--json', 'print {"token": ...} for scripts')
    .addHelpText(
      'after',
      `
Examples:
  $ recsvc token create --scopes read,write,admin --label operator
  $ recsvc token create --scopes read,write --user alice --tier premium --expires 7d --json`,
    )
    .action(async (options: TokenCreateOptions) => {
      const { runTokenCreate } = await import('./token.actions.js');
      await runTokenCreate(options);
    });
}
