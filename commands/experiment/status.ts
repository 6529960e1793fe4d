/** `recsvc experiment status <id>`. */
import type { Command } from 'commander';
import { parsePositiveInt } from '../support/options.js';
import { addServerOptions, type ServerFlags } from '../support/server-options.js';

export interface StatusOptions extends ServerFlags {
  json?: boolean;
}

/** Registers `experiment status`. */
export function registerStatus(group: Command): void {
  const command = group
    .command('status')
    .description('users assigned per variant: count, actual share vs allocation, and the sample ratio check')
    .argument('<id>', 'experiment id', parsePositiveInt)
    .option('--json', 'print the status report as JSON');
  addServerOptions(command)
    .addHelpText(
      'after',
      '\nA sample ratio mismatch (chi-square p < 0.001) is shown prominently and warned about on stderr.\n\nExample:\n  $ recsvc experiment status 7',
    )
    .action(async (id: number, options: StatusOptions) => {
      const { runStatus } = await import('./status.action.js');
      await runStatus(id, options);
    });
}
