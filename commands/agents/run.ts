/** `recsvc agents run <name>`. */
import type { Command } from 'commander';
import type { AgentsRunOptions } from './agents.actions.js';

/** Registers `agents run`. */
export function registerAgentsRun(agents: Command): void {
  agents
    .command('run')
    .description('run one agent once against the database and print what it did')
    .argument('<name>', 'the agent (see `recsvc agents list`)')
    .option('--db <path|url>', 'SQLite database file or postgres:// URL (env RECSVC_DATABASE_URL or RECSVC_DB, default ./recsvc.db)')
    .option('--json', 'print the outcome and the agent status record as JSON')
    .addHelpText(
      'after',
      `
Runs in this process, with the settings serve reads from the environment; a running
server's in-memory caches are not refreshed by it (its own agents do that).
A cluster agent runs even if an instance ran it within its interval (it is skipped only
while another process is running it), and its success counts as the cluster's run: an
instance skips a scheduled run that comes less than 90% of an interval after it.
Exit codes: 0 the run succeeded, 1 the agent failed, 2 unknown agent or bad --db.

Examples:
  $ recsvc agents run database_maintenance --db /var/lib/recsvc/recsvc.db
  $ recsvc agents run experiment_gates --json`,
    )
    .action(async (name: string, options: AgentsRunOptions) => {
      const { runAgentsRun } = await import('./agents.actions.js');
      await runAgentsRun(name, options);
    });
}
