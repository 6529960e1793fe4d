/** Table types of the agent runner (migration 0029-agent-runs). Epoch milliseconds in `*_ms`. */

/** How a run was started: by the runner's schedule, or asked for (`recsvc agents run`, `runNow`). */
export type AgentRunKind = 'scheduled' | 'explicit';

/** The last successful run of one cluster agent, by any process on the database. */
export interface AgentRunsTable {
  /** The agent's name (its `agent_type` label). */
  name: string;
  /** When that run ended, on the clock of the process that ran it. */
  last_success_at_ms: number;
  /** Which process ran it: "host pid 123". */
  ran_by: string;
  run_kind: AgentRunKind;
}

export interface AgentTables {
  agent_runs: AgentRunsTable;
}
