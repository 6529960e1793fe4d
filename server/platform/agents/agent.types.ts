/**
 * What an agent is, what one run reports, and the status record the runner keeps.
 * A feature adds an agent with one line in its registration:
 * `context.agents.register(myAgent(deps, context.agentIntervalSeconds))`; it is then
 * scheduled by `serve`, listed at /api/v1/agents/status, counted in
 * service_agent_executions and runnable with `recsvc agents run <name>`.
 */

/** Handed to each run. */
export interface AgentRunContext {
  /** Aborted when the run times out or the service stops: long agents check it between steps. */
  signal: AbortSignal;
  /** The runner's clock (tests move it). */
  now: () => number;
}

/** What one run did, for the status record and `recsvc agents run`. */
export interface AgentReport {
  /** One line: "recomputed 120 trending posts". */
  summary: string;
  /** Counts behind the summary (printed by `agents run --json`). */
  details?: Record<string, number | string>;
}

/**
 * Where one run's effect lives, and so how instances sharing a PostgreSQL database run it:
 * - `cluster`: the run changes the shared database (purges, blocks, …); it runs on one
 *   instance at a time (an advisory lock per agent name), and about once per interval across
 *   them (`agent_runs` records the last success): an instance that finds another running it,
 *   or finds it run within the interval, skips that run (`skipped`, not failed) and tries
 *   again at its next interval.
 * - `instance`: the run rebuilds this process's own memory (caches, snapshots, indexes)
 *   from the database; every instance runs it, unlocked.
 * On SQLite one process owns the file's agents and the two behave alike.
 */
export type AgentScope = 'cluster' | 'instance';

export interface Agent {
  /** Unique name, also the `agent_type` metric label (snake_case). */
  readonly name: string;
  /** One line for `recsvc agents list`. */
  readonly description?: string;
  /** Seconds between runs. */
  readonly intervalSeconds: number;
  /** See AgentScope; undeclared counts as `cluster` (the safe side for shared data). */
  readonly scope?: AgentScope;
  /** Up to this many random seconds are added to each delay, so agents started together spread out. */
  readonly jitterSeconds?: number;
  /** Seconds from start to the first run (default: one interval). */
  readonly initialDelaySeconds?: number;
  /** A run still going after this many seconds is failed and its signal aborted (default: the runner's). */
  readonly timeoutSeconds?: number;
  /** Throwing or rejecting fails the run; the service carries on and the runner retries with backoff. */
  run(context: AgentRunContext): Promise<AgentReport | void> | AgentReport | void;
}

/** `failed` stays until a run succeeds; `running` while a run is in flight; a skipped run leaves it as it was. */
export type AgentState = 'idle' | 'running' | 'failed';

/** One agent's record at /api/v1/agents/status (the spec's name, status, last_execution, then ours). */
export interface AgentStatus {
  name: string;
  status: AgentState;
  /** When the last run ended (ISO 8601); null before the first run. */
  last_execution: string | null;
  /** When the last successful run ended. */
  last_success: string | null;
  /** The error of the last run when it failed; null after a success. */
  last_error: string | null;
  /** When that failure happened. */
  last_error_at: string | null;
  /** The summary of the last successful run. */
  last_summary: string | null;
  last_duration_ms: number | null;
  /** Runs ended so far (successes and failures). */
  executions: number;
  /** Failures since the last success (the backoff exponent). */
  consecutive_failures: number;
  /** Runs skipped so far because another instance was running this (cluster) agent, or had run it within the interval. */
  skips: number;
  /** When the last skipped run was due; null when none was skipped. */
  last_skipped_at: string | null;
  /** Why it was skipped (which lock another instance held, or who ran it and when). */
  last_skip_reason: string | null;
  interval_seconds: number;
  /** When the next scheduled run starts; null when the agents are not scheduled (tests, the CLI, after stop). */
  next_run_at: string | null;
}

/** The outcome of one run, as `runNow` returns it. */
export interface AgentRunOutcome {
  name: string;
  /** `skipped`: another instance was running this cluster agent, or (scheduled runs) had run it within the interval; nothing ran here. */
  status: 'success' | 'failed' | 'skipped';
  durationMs: number;
  report?: AgentReport;
  error?: string;
  /** Why the run was skipped. */
  reason?: string;
}
