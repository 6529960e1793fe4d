/** Shared registration of `experiment start|pause|stop <id>`: the same shape, one server call each. */
import type { Command } from 'commander';
import type { ExperimentAction } from '../../src/experiments/state-machine.js';
import { parsePositiveInt } from '../support/options.js';
import { addServerOptions } from '../support/server-options.js';
import type { TransitionOptions } from './transition.action.js';

/** Registers one life-cycle command. */
export function registerTransition(group: Command, action: ExperimentAction, description: string, example: string): void {
  const command = group
    .command(action)
    .description(description)
    .argument('<id>', 'experiment id', parsePositiveInt)
    .option('--json', 'print the updated experiment as JSON');
  addServerOptions(command)
    .addHelpText(
      'after',
      `\nStates: DRAFT -> ACTIVE (start) <-> PAUSED (pause/start) -> COMPLETED (stop); any other move fails (exit 3).\n\nExample:\n  $ ${example}`,
    )
    .action(async (id: number, options: TransitionOptions) => {
      const { runTransition } = await import('./transition.action.js');
      await runTransition(action, id, options);
    });
}
