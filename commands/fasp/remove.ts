/** `recsvc fasp remove`. */
import type { Command } from 'commander';

/** Registers `fasp remove`. */
export function registerFaspRemove(fasp: Command, dbOption: readonly [string, string]): void {
  fasp
    .command('remove')
    .description("forget a registration and its keys: the server's requests are refused from then on")
    .argument('<id>', 'the server id `fasp list` shows')
    .option(...dbOption)
    .option('--json', 'print the result as JSON')
    .action(async (id: string, options: { db?: string; json?: boolean }) => {
      const { runFaspRemove } = await import('./fasp.actions.js');
      await runFaspRemove(id, options);
    });
}
