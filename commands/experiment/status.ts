/** `recsvc experiment status <id>`. */
import type { Command } from 'commander';
import { parsePositiveInt } from '../support/options.js';
import { addMethodOption } from './analyze-method.js';
import { addServerOptions } from '../support/server-options.js';
import { addWatchOptions } from './status-watch.js';
import type { StatusOptions } from './status.action.js';

/** Registers `experiment status`. */
export function registerStatus(group: Command): void {
  const command = group
    .command('status')
    .description("users assigned per variant: count, actual share vs allocation, the sample ratio check, and the primary metric's verdict")
    .argument('<id>', 'experiment id', parsePositiveInt)
    .option(
      '--json',
      "print the status report as JSON (with analysis_method, the primary metric's statistical_significance, metric_roles, guardrails and decision)",
    )
    .option(
      '--by-instance',
      "users per variant, the sample ratio check and the primary metric per instance of the users' ids (in --json: by_instance)",
    );
  addMethodOption(command, "analysis method for this read (default: the experiment's, recorded at creation)");
  addWatchOptions(command);
  addServerOptions(command)
    .addHelpText(
      'after',
      `
A sample ratio mismatch (chi-square p < 0.001) is shown prominently and warned about on stderr.
The verdict uses the experiment's analysis method: sequential results may be read at any time;
fixed-horizon ones only at the planned final read (--method fixed asks for that read).

Examples:
  $ recsvc experiment status 7
  $ recsvc experiment status 7 --method fixed
  $ recsvc experiment status 7 --by-instance

The decision line is drawn from the primary metric alone; guardrails are tested one-sided for
harm (Holm-corrected across them) and every other metric is labelled exploratory.`,
    )
    .action(async (id: number, options: StatusOptions) => {
      if (options.watch || options.interval !== undefined) {
        const { runStatusWatch } = await import('./status-watch.action.js');
        return runStatusWatch(id, options);
      }
      const { runStatus } = await import('./status.action.js');
      await runStatus(id, options);
    });
}
