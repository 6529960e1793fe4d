/** `recsvc fasp show`. */
import type { Command } from 'commander';

/** Registers `fasp show`. */
export function registerFaspShow(fasp: Command, dbOption: readonly [string, string]): void {
  fasp
    .command('show')
    .description('show one registration: ids, key fingerprints, enabled capabilities, data-sharing subscriptions, debug calls')
    .argument('<id>', 'the server id `fasp list` shows')
    .option(...dbOption)
    .option('--json', 'print every field as JSON')
    .action(async (id: string, options: { db?: string; json?: boolean }) => {
      const { runFaspShow } = await import('./fasp.actions.js');
      await runFaspShow(id, options);
    });
}
