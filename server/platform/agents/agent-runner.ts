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
 * - Once per interval across the cluster: given the database (`db`), the runner keeps each
 *   cluster agent's last successful run in `agent_runs` (who, when; read and written inside
 *   the lock). A scheduled run finding there a success, by any process, that ended less than
 *   the interval less 10% slack ago (clusterRunFreshMs) is skipped like a locked one, with
 *   the reason "ran on another instance (…) at …"; otherwise it runs and records its success.
 *   So N instances run the agent about once per interval between them, not N times; each
 *   keeps its own schedule, and if the one that ran it stops, another runs it within about an
 *   interval. A failed or timed-out run records nothing (the next instance due retries it).
 *   Such a skip also ends this instance's backoff: the agent is healthy elsewhere.
 * - An explicit run (`runNow`: `recsvc agents run <name>`) is what an operator asked for: it
 *   does not look at `agent_runs` (only the lock can stop it, when a run is in flight
 *   elsewhere) and its success counts as the cluster's last run. Joining a scheduled run in
 *   flight that ends skipped, it runs once that settles.
 * - Instance agents never use the lock or `agent_runs`: every instance runs them.
 */
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { MAX_TIMER_MS } from '../duration-setting.js';
import type { ExclusiveLock } from '../db/database-handle.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { Agent, AgentReport, AgentRunOutcome, AgentStatus } from './agent.types.js';
import { findAgentRun, recordAgentRun, type AgentRunRow } from './agent-runs.repository.js';
import {
  clusterRunFreshMs,
  DEFAULT_RETRY_POLICY,
  retryDelayMs,
  systemClock,
  withJitter,
  type AgentClock,
  type RetryPolicy,
} from './agent-schedule.js';

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
  /**
   * Where cluster agents' last successful runs are shared (`agent_runs`), so that a cluster
   * runs each about once per interval; none: each runner keeps to its own schedule only.
   */
  db?: Kysely<Database>;
  /** This process in `agent_runs.ran_by` and skip reasons (default "<host> pid <pid>"). */
  instance?: string;
}

/**
 * What the guarded run gave: the agent's report, or why it did not run (`doneElsewhere`: a
 * success within the interval was recorded, rather than the lock being held).
 */
type Ran = { ran: true; report: AgentReport | void } | { ran: false; reason: string; doneElsewhere?: boolean };

interface Entry {
  agent: Agent;
  status: AgentStatus;
  timer?: unknown;
  nextRunAtMs?: number | undefined;
  running?: Promise<AgentRunOutcome> | undefined;
  /** Whether the run in flight was asked for (runNow) rather than scheduled. */
  runningExplicit?: boolean | undefined;
  /** The last run was skipped because another process had just run the agent. */
  doneElsewhere?: boolean;
  /** A run that timed out and has not settled yet. */
  abandoned?: Promise<unknown> | undefined;
  controller?: AbortController | undefined;
}

const DEFAULT_TIMEOUT_SECONDS = 300;
const DEFAULT_STOP_GRACE_MS = 5_000;

export class AgentRunner {
  private readonly agents = new Map<string, Entry>();
  private readonly clock: AgentClock;
  private readonly instance: string;
  private scheduled = false;

  constructor(
    private readonly metrics: Pick<ServiceMetrics, 'agentExecutions'>,
    private readonly log: AgentLog,
    private readonly options: AgentRunnerOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.instance = options.instance ?? `${hostname()} pid ${process.pid}`;
  }

  /** Adds an agent; scheduled by `start` (or at once, when the runner has started). */
  register(agent: Agent): void {
    if (this.agents.has(agent.name)) throw new Error(`agent ${agent.name} is registered twice`);
    for (const seconds of [agent.intervalSeconds, agent.initialDelaySeconds ?? 0]) {
      // A longer timer fires after 1 ms: the agent would run in a loop (config.ts bounds RECSVC_AGENT_INTERVAL for this).
      if (!(seconds * 1000 <= MAX_TIMER_MS)) throw new RangeError(`agent ${agent.name}: ${seconds} s is longer than a timer can wait`);
    }
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

  /**
   * Runs one agent now, or joins its run in flight; never rejects (a failure is the outcome).
   * An explicit run: a cluster agent runs even if another process ran it within its interval.
   */
  runNow(name: string): Promise<AgentRunOutcome> {
    const entry = this.agents.get(name);
    if (!entry) throw new Error(`unknown agent ${name}`);
    const inFlight = entry.running;
    if (inFlight === undefined || entry.runningExplicit === true) return this.run(entry, true);
    // A scheduled run in flight may end skipped (done elsewhere, or locked): the operator asked for a run.
    return inFlight.then((outcome) => (outcome.status === 'skipped' ? this.run(entry, true) : outcome));
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
    await this.run(entry, false);
    if (!this.scheduled || entry.timer !== undefined) return;
    const intervalMs = entry.agent.intervalSeconds * 1000;
    const failures = entry.status.consecutive_failures;
    // Another process's success ends the backoff here: retrying sooner would only skip again.
    const backoff = failures > 0 && entry.doneElsewhere !== true;
    this.schedule(entry, backoff ? retryDelayMs(failures, intervalMs, this.options.retry ?? DEFAULT_RETRY_POLICY) : intervalMs);
  }

  private run(entry: Entry, explicit: boolean): Promise<AgentRunOutcome> {
    if (entry.running) return entry.running;
    const running = this.execute(entry, explicit).finally(() => {
      entry.running = undefined;
      entry.runningExplicit = undefined;
      entry.controller = undefined;
    });
    entry.running = running;
    entry.runningExplicit = explicit;
    return running;
  }

  private async execute(entry: Entry, explicit: boolean): Promise<AgentRunOutcome> {
    const { agent, status } = entry;
    const startedAt = this.clock.now();
    entry.doneElsewhere = false;
    if (entry.abandoned) {
      return this.finish(entry, startedAt, { error: 'the previous run timed out and is still running; not started again' });
    }
    const before = status.status;
    status.status = 'running';
    const controller = new AbortController();
    entry.controller = controller;
    let gaveUp = false;
    const work = this.guarded(agent, controller.signal, explicit, () => !gaveUp);
    const timeoutMs = (agent.timeoutSeconds ?? this.options.defaultTimeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
    let timer: unknown;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = this.clock.setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      const result = await Promise.race([work, timedOut]);
      if (result === 'timeout') {
        gaveUp = true;
        const message = `timed out after ${timeoutMs / 1000} s`;
        controller.abort(new Error(message));
        this.abandon(entry, work);
        return this.finish(entry, startedAt, { error: message });
      }
      if (!result.ran) {
        entry.doneElsewhere = result.doneElsewhere === true;
        return this.skipped(entry, startedAt, before, result.reason);
      }
      return this.finish(entry, startedAt, result.report ? { report: result.report } : {});
    } catch (error) {
      return this.finish(entry, startedAt, { error: error instanceof Error ? error.message : String(error) });
    } finally {
      this.clock.clearTimeout(timer);
    }
  }

  /**
   * Runs the agent; a cluster agent inside the lock when the runner has one, and once per
   * interval across the cluster when it has the database. `counted`: false once the run timed
   * out (its late success is not recorded).
   */
  private async guarded(agent: Agent, signal: AbortSignal, explicit: boolean, counted: () => boolean): Promise<Ran> {
    // An async function turns a synchronous throw into a rejection like any other.
    const run = async (): Promise<AgentReport | void> => agent.run({ signal, now: () => this.clock.now() });
    if (agent.scope === 'instance') return { ran: true, report: await run() };
    const once = (): Promise<Ran> => this.onceInCluster(agent, explicit, counted, run);
    const lock = this.options.lock;
    if (lock === undefined) return once();
    const outcome = await lock(`agent:${agent.name}`, once);
    return outcome.acquired ? outcome.value : { ran: false, reason: outcome.reason };
  }

  /** A cluster agent's run, unless it is scheduled and some process succeeded within the interval; records a success. */
  private async onceInCluster(
    agent: Agent,
    explicit: boolean,
    counted: () => boolean,
    run: () => Promise<AgentReport | void>,
  ): Promise<Ran> {
    const db = this.options.db;
    if (db === undefined) return { ran: true, report: await run() };
    if (!explicit) {
      const last = await findAgentRun(db, agent.name);
      if (last !== undefined && this.clock.now() - last.last_success_at_ms < clusterRunFreshMs(agent.intervalSeconds * 1000)) {
        return { ran: false, reason: this.ranRecently(agent, last), doneElsewhere: true };
      }
    }
    const report = await run();
    if (counted()) {
      const row: AgentRunRow = {
        name: agent.name,
        last_success_at_ms: this.clock.now(),
        ran_by: this.instance,
        run_kind: explicit ? 'explicit' : 'scheduled',
      };
      // The work is done: a record that could not be written costs at most one extra run elsewhere.
      await recordAgentRun(db, row).catch((error: unknown) => {
        this.log.warn(
          { agent: agent.name, error: error instanceof Error ? error.message : String(error) },
          'agent run not recorded in agent_runs',
        );
      });
    }
    return { ran: true, report };
  }

  /** Why a scheduled run is skipped: who ran the agent, and when. */
  private ranRecently(agent: Agent, last: AgentRunRow): string {
    const where = last.ran_by === this.instance ? 'this instance' : `another instance (${last.ran_by})`;
    const how = last.run_kind === 'explicit' ? ' (an explicit run)' : '';
    return `ran on ${where} at ${new Date(last.last_success_at_ms).toISOString()}${how}, within its ${agent.intervalSeconds} s interval`;
  }

  /** Records a run another instance was doing or had just done: not an execution, neither a success nor a failure. */
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
