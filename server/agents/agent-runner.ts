/**
 * Background agents: named periodic jobs with their state visible at
 * /api/v1/agents/status and every run counted in service_agent_executions{agent_type,
 * status="success"|"failed"}.
 *
 * - Runs of one agent never overlap: a run asked for while one is in flight joins it.
 * - A failure never reaches the service: a synchronous throw, a rejection and a hang (past
 *   the agent's timeout, 5 min by default) all end as a `failed` run with its error; the
 *   runner then retries with exponential backoff (agent-schedule.ts: 5 s, 10 s, 20 s, …
 *   capped at 15 min or the interval if longer) and returns to the interval after a success.
 * - A timed-out run is abandoned, not killed: its signal is aborted, and the agent is not
 *   started again until that run has settled (the attempt fails as "still running").
 * - `stop()` cancels the schedule and waits for runs in flight up to a bound (5 s by
 *   default), then aborts their signals and returns.
 * - A `cluster` agent (the default; see AgentScope) runs inside the database's exclusive lock
 *   named `agent:<name>` when the runner is given one (DatabaseHandle.withExclusiveLock): on
 *   PostgreSQL, only one of the instances sharing the database runs it at a time; the others
 *   skip that run (status="skipped" in the metric, `skips` in the status record) and keep
 *   their schedule. The lock is held until the run settles, even past its timeout.
 */
import type { ExclusiveLock } from '../db/database-handle.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { Agent, AgentReport, AgentRunOutcome, AgentStatus } from './agent.types.js';
import { DEFAULT_RETRY_POLICY, retryDelayMs, systemClock, withJitter, type AgentClock, type RetryPolicy } from './agent-schedule.js';

export type { Agent, AgentReport, AgentRunContext, AgentRunOutcome, AgentScope, AgentStatus } from './agent.types.js';

/** Where failures and abandoned runs are logged (the server's logger). */
export interface AgentLog {
  error(object: object, message: string): void;
  warn(object: object, message: string): void;
}

export interface AgentRunnerOptions {
  clock?: AgentClock;
  /** For jitter (tests fix it). */
  random?: () => number;
  retry?: RetryPolicy;
  /** Timeout of agents that set none (default 300 s). */
  defaultTimeoutSeconds?: number;
  /** How long `stop()` waits for runs in flight (default 5 s). */
  stopGraceMs?: number;
  /** Held around each run of a cluster agent (the database's); none: every run goes ahead. */
  lock?: ExclusiveLock;
}

/** What the guarded run gave: the agent's report, or why it did not run. */
type Ran = { ran: true; report: AgentReport | void } | { ran: false; reason: string };

interface Entry {
  agent: Agent;
  status: AgentStatus;
  timer?: unknown;
  nextRunAtMs?: number | undefined;
  running?: Promise<AgentRunOutcome> | undefined;
  /** A run that timed out and has not settled yet. */
  abandoned?: Promise<unknown> | undefined;
  controller?: AbortController | undefined;
}

const DEFAULT_TIMEOUT_SECONDS = 300;
const DEFAULT_STOP_GRACE_MS = 5_000;

export class AgentRunner {
  private readonly agents = new Map<string, Entry>();
  private readonly clock: AgentClock;
  private scheduled = false;

  constructor(
    private readonly metrics: Pick<ServiceMetrics, 'agentExecutions'>,
    private readonly log: AgentLog,
    private readonly options: AgentRunnerOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
  }

  /** Adds an agent; scheduled by `start` (or at once, when the runner has started). */
  register(agent: Agent): void {
    if (this.agents.has(agent.name)) throw new Error(`agent ${agent.name} is registered twice`);
    const entry: Entry = { agent, status: initialStatus(agent) };
    this.agents.set(agent.name, entry);
    if (this.scheduled) this.schedule(entry, (agent.initialDelaySeconds ?? agent.intervalSeconds) * 1000);
  }

  /** The registered agents' names, in registration order. */
  names(): string[] {
    return [...this.agents.keys()];
  }

  /** The agent registered under `name`, if any. */
  find(name: string): Agent | undefined {
    return this.agents.get(name)?.agent;
  }

  /** Schedules every agent: first after its initial delay, then every interval (backing off after failures). */
  start(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    for (const entry of this.agents.values()) {
      this.schedule(entry, (entry.agent.initialDelaySeconds ?? entry.agent.intervalSeconds) * 1000);
    }
  }

  /** Runs one agent now, or joins its run in flight; never rejects (a failure is the outcome). */
  runNow(name: string): Promise<AgentRunOutcome> {
    const entry = this.agents.get(name);
    if (!entry) throw new Error(`unknown agent ${name}`);
    return this.run(entry);
  }

  /** Cancels the schedule, waits up to the grace period for runs in flight, then aborts what is left. */
  async stop(): Promise<void> {
    this.scheduled = false;
    for (const entry of this.agents.values()) {
      this.clock.clearTimeout(entry.timer);
      entry.timer = undefined;
      entry.nextRunAtMs = undefined;
    }
    const inFlight = [...this.agents.values()].flatMap((entry) => (entry.running ? [entry.running] : []));
    if (inFlight.length === 0) return;
    let timer: unknown;
    const grace = new Promise<'timeout'>((resolve) => {
      timer = this.clock.setTimeout(() => resolve('timeout'), this.options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS);
    });
    const result = await Promise.race([Promise.all(inFlight).then(() => 'done' as const), grace]);
    this.clock.clearTimeout(timer);
    if (result === 'timeout') {
      for (const entry of this.agents.values()) {
        if (!entry.running) continue;
        entry.controller?.abort(new Error('the service is stopping'));
        this.log.warn({ agent: entry.agent.name }, 'agent still running at shutdown: abandoned');
      }
    }
  }

  /** The status record of every agent. */
  statuses(): AgentStatus[] {
    return [...this.agents.values()].map((entry) => ({
      ...entry.status,
      next_run_at: entry.nextRunAtMs === undefined ? null : new Date(entry.nextRunAtMs).toISOString(),
    }));
  }

  private schedule(entry: Entry, delayMs: number): void {
    this.clock.clearTimeout(entry.timer);
    const delay = withJitter(delayMs, (entry.agent.jitterSeconds ?? 0) * 1000, this.options.random ?? Math.random);
    entry.nextRunAtMs = this.clock.now() + delay;
    entry.timer = this.clock.setTimeout(() => void this.tick(entry), delay);
  }

  private async tick(entry: Entry): Promise<void> {
    entry.timer = undefined;
    entry.nextRunAtMs = undefined;
    await this.run(entry);
    if (!this.scheduled || entry.timer !== undefined) return;
    const intervalMs = entry.agent.intervalSeconds * 1000;
    const failures = entry.status.consecutive_failures;
    this.schedule(entry, failures === 0 ? intervalMs : retryDelayMs(failures, intervalMs, this.options.retry ?? DEFAULT_RETRY_POLICY));
  }

  private run(entry: Entry): Promise<AgentRunOutcome> {
    if (entry.running) return entry.running;
    const running = this.execute(entry).finally(() => {
      entry.running = undefined;
      entry.controller = undefined;
    });
    entry.running = running;
    return running;
  }

  private async execute(entry: Entry): Promise<AgentRunOutcome> {
    const { agent, status } = entry;
    const startedAt = this.clock.now();
    if (entry.abandoned) {
      return this.finish(entry, startedAt, { error: 'the previous run timed out and is still running; not started again' });
    }
    const before = status.status;
    status.status = 'running';
    const controller = new AbortController();
    entry.controller = controller;
    const work = this.guarded(agent, controller.signal);
    const timeoutMs = (agent.timeoutSeconds ?? this.options.defaultTimeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
    let timer: unknown;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = this.clock.setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      const result = await Promise.race([work, timedOut]);
      if (result === 'timeout') {
        const message = `timed out after ${timeoutMs / 1000} s`;
        controller.abort(new Error(message));
        this.abandon(entry, work);
        return this.finish(entry, startedAt, { error: message });
      }
      if (!result.ran) return this.skipped(entry, startedAt, before, result.reason);
      return this.finish(entry, startedAt, result.report ? { report: result.report } : {});
    } catch (error) {
      return this.finish(entry, startedAt, { error: error instanceof Error ? error.message : String(error) });
    } finally {
      this.clock.clearTimeout(timer);
    }
  }

  /** Runs the agent, inside the lock when it is a cluster agent and the runner has one. */
  private async guarded(agent: Agent, signal: AbortSignal): Promise<Ran> {
    // An async function turns a synchronous throw into a rejection like any other.
    const run = async (): Promise<AgentReport | void> => agent.run({ signal, now: () => this.clock.now() });
    const lock = this.options.lock;
    if (lock === undefined || agent.scope === 'instance') return { ran: true, report: await run() };
    const outcome = await lock(`agent:${agent.name}`, run);
    return outcome.acquired ? { ran: true, report: outcome.value } : { ran: false, reason: outcome.reason };
  }

  /** Records a run another instance was doing: not an execution, neither a success nor a failure. */
  private skipped(entry: Entry, startedAt: number, before: AgentStatus['status'], reason: string): AgentRunOutcome {
    const { agent, status } = entry;
    const endedAt = this.clock.now();
    status.status = before;
    status.skips += 1;
    status.last_skipped_at = new Date(endedAt).toISOString();
    status.last_skip_reason = reason;
    this.metrics.agentExecutions.inc({ agent_type: agent.name, status: 'skipped' });
    return { name: agent.name, status: 'skipped', durationMs: endedAt - startedAt, reason };
  }

  /** Keeps a timed-out run's promise until it settles, so the agent does not run twice at once. */
  private abandon(entry: Entry, work: Promise<unknown>): void {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    entry.abandoned = settled;
    void settled.then(() => {
      if (entry.abandoned === settled) entry.abandoned = undefined;
    });
  }

  private finish(entry: Entry, startedAt: number, result: { report?: AgentReport; error?: string }): AgentRunOutcome {
    const { agent, status } = entry;
    const endedAt = this.clock.now();
    const at = new Date(endedAt).toISOString();
    status.executions += 1;
    status.last_execution = at;
    status.last_duration_ms = endedAt - startedAt;
    const outcome: AgentRunOutcome = {
      name: agent.name,
      status: result.error === undefined ? 'success' : 'failed',
      durationMs: endedAt - startedAt,
    };
    if (result.error === undefined) {
      status.status = 'idle';
      status.last_success = at;
      status.last_error = null;
      status.last_error_at = null;
      status.consecutive_failures = 0;
      status.last_summary = result.report?.summary ?? null;
      if (result.report) outcome.report = result.report;
    } else {
      status.status = 'failed';
      status.last_error = result.error;
      status.last_error_at = at;
      status.consecutive_failures += 1;
      outcome.error = result.error;
      this.log.error({ agent: agent.name, error: result.error, consecutive_failures: status.consecutive_failures }, 'agent run failed');
    }
    this.metrics.agentExecutions.inc({ agent_type: agent.name, status: outcome.status });
    return outcome;
  }
}

function initialStatus(agent: Agent): AgentStatus {
  return {
    name: agent.name,
    status: 'idle',
    last_execution: null,
    last_success: null,
    last_error: null,
    last_error_at: null,
    last_summary: null,
    last_duration_ms: null,
    executions: 0,
    consecutive_failures: 0,
    skips: 0,
    last_skipped_at: null,
    last_skip_reason: null,
    interval_seconds: agent.intervalSeconds,
    next_run_at: null,
  };
}
