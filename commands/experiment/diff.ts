/** `recsvc experiment diff <id> --allocations ...`: what an allocation change would move, before it is made. */
import type { Command } from 'commander';
import { parsePositiveInt } from '../support/options.js';
import { addServerOptions } from '../support/server-options.js';
import type { DiffOptions } from './diff.action.js';

/** Registers `experiment diff`. */
export function registerDiff(group: Command): void {
  const command = group
    .command('diff')
    .description('before an allocation change: which buckets change variant and how many assigned users would move')
    .argument('<id>', 'experiment id', parsePositiveInt)
    .requiredOption('-a, --allocations <list>', "every variant's proposed allocation, e.g. control=40,treatment=60 (sum 100)")
    .option('--json', 'print the diff as JSON');
  addServerOptions(command)
    .addHelpText(
      'after',
      `
Read-only. Variants keep their order (and so their bucket ranges' order) whatever the flag's order.
A user's first assignment is recorded and never changes: users counted as moving would keep their
variant while new users of the same buckets get another, so the server refuses such a change
(PATCH /api/v1/analytics/experiments/<id>) unless it is sent with "force": true.

Examples:
  $ recsvc experiment diff 7 --allocations control=40,treatment=60
  $ recsvc experiment diff 7 -a control=34,a=33,b=33 --json`,
    )
    .action(async (id: number, options: DiffOptions) => {
      const { runDiff } = await import('./diff.action.js');
      await runDiff(id, options);
    });
}
