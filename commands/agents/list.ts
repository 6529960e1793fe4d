/** `recsvc agents list`. */
import type { Command } from 'commander';
import type { AgentsListOptions } from './agents.actions.js';

/** Registers `agents list`. */
export function registerAgentsList(agents: Command): void {
  agents
    .command('list')
    .description('list the agents `serve` schedules, with their intervals')
    .option('--db <path|url>', 'SQLite database file or postgres:// URL (env RECSVC_DATABASE_URL or RECSVC_DB, default ./recsvc.db)')
    .option('--json', 'print [{name, description, interval_seconds}] as JSON')
    .action(async (options: AgentsListOptions) => {
      const { runAgentsList } = await import('./agents.actions.js');
      await runAgentsList(options);
    });
}
