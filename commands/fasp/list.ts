/** `recsvc fasp list`. */
import type { Command } from 'commander';

/** Registers `fasp list`. */
export function registerFaspList(fasp: Command, dbOption: readonly [string, string]): void {
  fasp
    .command('list')
    .description('list the servers this service is registered with, and their enabled capabilities')
    .option(...dbOption)
    .option('--json', 'print every field as JSON')
    .action(async (options: { db?: string; json?: boolean }) => {
      const { runFaspList } = await import('./fasp.actions.js');
      await runFaspList(options);
    });
}
