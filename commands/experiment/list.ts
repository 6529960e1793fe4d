/** `recsvc experiment list`. */
import { Option, type Command } from 'commander';
import { EXPERIMENT_STATUSES } from '../../src/experiments/state-machine.js';
import { addServerOptions } from '../support/server-options.js';
import type { ListOptions } from './list.action.js';

/** Registers `experiment list`. */
export function registerList(group: Command): void {
  const command = group
    .command('list')
    .description('list experiments, newest first')
    .addOption(new Option('-s, --status <status>', 'only experiments in this state').choices(EXPERIMENT_STATUSES))
    .option('--json', 'print the experiments as a JSON array');
  addServerOptions(command)
    .addHelpText('after', '\nExamples:\n  $ recsvc experiment list\n  $ recsvc experiment list --status ACTIVE --json')
    .action(async (options: ListOptions) => {
      const { runList } = await import('./list.action.js');
      await runList(options);
    });
}
