/** `recsvc agents`: list the background agents and run one once, on the server host. */
import type { Command } from 'commander';
import { registerAgentsList } from './list.js';
import { registerAgentsRun } from './run.js';

/** Registers the `agents` group. */
export function registerAgents(program: Command): void {
  const agents = program
    .command('agents')
    .description('list the background agents, or run one once against the database (on the server host, same --db)');
  registerAgentsList(agents);
  registerAgentsRun(agents);
}
