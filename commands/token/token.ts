/** `recsvc token`: mint, list and revoke service tokens on the server host. */
import type { Command } from 'commander';
import { registerTokenCreate } from './create.js';
import { registerTokenList } from './list.js';
import { registerTokenRevoke } from './revoke.js';

/** Registers the `token` group. */
export function registerToken(program: Command): void {
  const token = program
    .command('token')
    .description('manage service bearer tokens (run on the server host, against the same --db)')
    .addHelpText('after', '\nTokens are printed once and stored only as SHA-256 hashes.');
  registerTokenCreate(token);
  registerTokenList(token);
  registerTokenRevoke(token);
}
