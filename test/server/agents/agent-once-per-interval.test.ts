/**
 * A cluster agent once per interval across instances: two runners (as two `recsvc serve`
 * processes) on one database, sharing its lock and its `agent_runs` record, each on its own
 * schedule, run the agent about once per interval between them, not once each. A failed run
 * records nothing, so the other instance runs it; an explicit run (`recsvc agents run`) is
 * never skipped as recent and counts as the cluster's run; instance agents run everywhere.
 * On a manual clock; SQLite by default, PostgreSQL under vitest.postgres.config.ts
 * (test/postgres/agent-lock.test.ts runs two PostgreSQL handles, one per instance).
 */
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentRunner, type Agent } from '../../../server/platform/agents/agent-runner.js';
import { buildApp } from '../../../server/app.js';
import { createServiceMetrics, type ServiceMetrics } from '../../../server/platform/metrics/service-metrics.js';
import { parsePrometheusText } from '../../helpers/prometheus.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/test-database.js';
import { ManualClock } from './manual-clock.js';

const INTERVAL_S = 60;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (offsetSeconds: number): string => new Date(T0 + offsetSeconds * 1000).toISOString();

let opened: TestDatabase;
let clock: ManualClock;
let runners: AgentRunner[];
/** The runners whose schedules are running. */
let scheduled: Set<AgentRunner>;

beforeEach(async () => {
  opened = await openTestDatabase();
  clock = new ManualClock();
  runners = [];
  scheduled = new Set();
});
afterEach(async () => {
  for (const runner of runners) await runner.stop();
  await opened.close();
});

interface Instance {
  runner: AgentRunner;
  metrics: ServiceMetrics;
  warnings: string[];
  /** Starts its schedule (`serve`). */
  start(): void;
  /** Stops it (the process ends). */
  stop(): Promise<void>;
}

/** A runner as one instance would have it: the database's lock and its agent_runs, named `name`. */
function instance(name: string): Instance {
  const metrics = createServiceMetrics();
  const warnings: string[] = [];
  const log = { error: () => undefined, warn: (_object: object, message: string) => warnings.push(message) };
  const { database } = opened;
  const runner = new AgentRunner(metrics, log, {
    clock,
    lock: database.withExclusiveLock,
    db: database.db,
    instance: name,
    retry: { baseMs: 5_000, maxMs: 30_000 },
    defaultTimeoutSeconds: 30,
  });
  runners.push(runner);
  return {
    runner,
    metrics,
    warnings,
    start: () => {
      runner.start();
      scheduled.add(runner);
    },
    stop: async () => {
      scheduled.delete(runner);
      await runner.stop();
    },
  };
}

/** Every scheduled runner has finished its tick and scheduled the next one. */
const idle = (): boolean => [...scheduled].every((runner) => runner.statuses().every((status) => status.next_run_at !== null));

/** Who ran the agent, in order (one shared log for the "same" agent on every instance). */
function purgeAgent(ranBy: string[], who: string, extra: Partial<Agent> = {}, fail?: () => boolean): Agent {
  return {
    name: 'purge',
    intervalSeconds: INTERVAL_S,
    scope: 'cluster',
    run() {
      if (fail?.()) throw new Error(`${who} is broken`);
      ranBy.push(who);
      return { summary: `purged on ${who}` };
    },
    ...extra,
  };
}

/** Instances a and b, each with the purge agent (first run at 60 s and 80 s unless given), both started. */
function startedPair(
  ranBy: string[],
  options: { a?: Partial<Agent>; b?: Partial<Agent>; aFails?: () => boolean } = {},
): { a: ReturnType<typeof instance>; b: ReturnType<typeof instance> } {
  const a = instance('a');
  const b = instance('b');
  a.runner.register(purgeAgent(ranBy, 'a', { initialDelaySeconds: 60, ...options.a }, options.aFails));
  b.runner.register(purgeAgent(ranBy, 'b', { initialDelaySeconds: 80, ...options.b }));
  a.start();
  b.start();
  return { a, b };
}

async function lastRun(): Promise<Record<string, unknown> | undefined> {
  const { rows } = await sql<Record<string, unknown>>`SELECT * FROM agent_runs WHERE name = 'purge'`.execute(opened.database.db);
  return rows[0];
}

async function executions(metrics: ServiceMetrics, status: string): Promise<number> {
  const samples = parsePrometheusText(await metrics.registry.metrics()).get('service_agent_executions')?.samples ?? [];
  return samples.filter((s) => s.labels.agent_type === 'purge' && s.labels.status === status).reduce((sum, s) => sum + s.value, 0);
}

describe('a cluster agent on two instances sharing the database', () => {
  it('runs about once per interval between them over ten intervals, not twice; the other skips, saying who ran it and when', async () => {
    const ranBy: string[] = [];
    // Their schedules 20 s apart, as two processes started at different times.
    const { a, b } = startedPair(ranBy);

    await clock.advance(10 * INTERVAL_S * 1000, idle);

    expect(ranBy).toEqual(Array<string>(10).fill('a'));
    expect(b.runner.statuses()[0]).toMatchObject({
      status: 'idle',
      executions: 0,
      skips: 9,
      last_skipped_at: iso(560),
      last_skip_reason: `ran on another instance (a) at ${iso(540)}, within its 60 s interval`,
      next_run_at: iso(620),
    });
    expect(a.runner.statuses()[0]).toMatchObject({ executions: 10, skips: 0, last_success: iso(600) });
    expect(await executions(b.metrics, 'skipped')).toBe(9);
    expect(await executions(b.metrics, 'success')).toBe(0);
    expect(await lastRun()).toMatchObject({ name: 'purge', last_success_at_ms: T0 + 600_000, ran_by: 'a', run_kind: 'scheduled' });
  });

  it('takes over within about an interval when the instance that ran it stops', async () => {
    const ranBy: string[] = [];
    const { a } = startedPair(ranBy);
    await clock.advance(130_000, idle);
    expect(ranBy).toEqual(['a', 'a']);
    await a.stop();
    // b skipped at 80 and 140 (a ran at 60 and 120); at 200 the last run is 80 s old.
    await clock.advance(70_000, idle);
    expect(ranBy).toEqual(['a', 'a', 'b']);
    expect(await lastRun()).toMatchObject({ ran_by: 'b', last_success_at_ms: T0 + 200_000 });
  });

  it('lets a run due within the 10% slack go ahead, and the other instance then skips: still one run per interval', async () => {
    const ranBy: string[] = [];
    // b is due 57 s after each of a's runs: past 90% of the interval, so b runs, and a skips 3 s later.
    const { a } = startedPair(ranBy, { b: { initialDelaySeconds: 117 } });
    await clock.advance(10 * INTERVAL_S * 1000, idle);
    // a at 60; b at 117 and every 60 s after; a skips at 120, 180, … (3 s after b).
    expect(ranBy).toEqual(['a', ...Array<string>(9).fill('b')]);
    expect(a.runner.statuses()[0]).toMatchObject({ executions: 1, skips: 9 });
  });

  it('a failed run records nothing: the other instance runs it, and the failing one leaves its backoff for the interval', async () => {
    const ranBy: string[] = [];
    const { a } = startedPair(ranBy, { aFails: () => true });

    // a fails at 60, 65 and 75 (retries after 5 s, 10 s): nothing is recorded.
    await clock.advance(79_000, idle);
    expect(ranBy).toEqual([]);
    expect(a.runner.statuses()[0]).toMatchObject({ status: 'failed', consecutive_failures: 3 });
    expect(await lastRun()).toBeUndefined();

    // b is due at 80 and runs: a's failures did not count as the cluster's run.
    await clock.advance(1_000, idle);
    expect(ranBy).toEqual(['b']);
    expect(await lastRun()).toMatchObject({ ran_by: 'b', last_success_at_ms: T0 + 80_000 });

    // a's next retry (at 95, 20 s after 75) finds b's run and skips; its next try is an interval on, not 30 s.
    await clock.advance(15_000, idle);
    expect(a.runner.statuses()[0]).toMatchObject({
      status: 'failed',
      consecutive_failures: 3,
      skips: 1,
      last_skip_reason: `ran on another instance (b) at ${iso(80)}, within its 60 s interval`,
      next_run_at: iso(155),
    });
  });

  it('an explicit run is never skipped as recent, and counts as the cluster run: the scheduled ones skip after it', async () => {
    const ranBy: string[] = [];
    const a = instance('a');
    const cli = instance('cli host pid 7');
    a.runner.register(purgeAgent(ranBy, 'a', { initialDelaySeconds: 60 }));
    cli.runner.register(purgeAgent(ranBy, 'cli'));
    a.start();
    await clock.advance(60_000, idle);
    expect(ranBy).toEqual(['a']);

    // 10 s after a's run, an operator runs it (recsvc agents run purge): it runs.
    await clock.advance(10_000, idle);
    expect(await cli.runner.runNow('purge')).toMatchObject({ status: 'success', report: { summary: 'purged on cli' } });
    expect(await lastRun()).toMatchObject({ ran_by: 'cli host pid 7', run_kind: 'explicit', last_success_at_ms: T0 + 70_000 });

    // a's run at 120 is 50 s after it: skipped, naming the explicit run; at 180 it runs again.
    await clock.advance(50_000, idle);
    expect(ranBy).toEqual(['a', 'cli']);
    expect(a.runner.statuses()[0]!.last_skip_reason).toBe(
      `ran on another instance (cli host pid 7) at ${iso(70)} (an explicit run), within its 60 s interval`,
    );
    await clock.advance(60_000, idle);
    expect(ranBy).toEqual(['a', 'cli', 'a']);

    // An explicit run on the instance itself at 200: its own scheduled run at 240 skips as done here.
    await clock.advance(20_000, idle);
    expect(await a.runner.runNow('purge')).toMatchObject({ status: 'success' });
    await clock.advance(40_000, idle);
    expect(ranBy).toEqual(['a', 'cli', 'a', 'a']);
    expect(a.runner.statuses()[0]!.last_skip_reason).toBe(
      `ran on this instance at ${iso(200)} (an explicit run), within its 60 s interval`,
    );
  });

  it('an explicit run that joins a scheduled run ending skipped still runs', async () => {
    const ranBy: string[] = [];
    const { b } = startedPair(ranBy);
    await clock.advance(60_000, idle);
    expect(ranBy).toEqual(['a']);
    // b's scheduled run starts at 80 (and will skip); the operator's run on b joins it.
    const advancing = clock.advance(20_000, idle);
    const explicit = b.runner.runNow('purge');
    await advancing;
    expect(await explicit).toMatchObject({ status: 'success', report: { summary: 'purged on b' } });
    expect(ranBy).toEqual(['a', 'b']);
    expect(b.runner.statuses()[0]).toMatchObject({ skips: 1, executions: 1 });
  });

  it('does not record a run that timed out, even when it ends well later', async () => {
    const ranBy: string[] = [];
    const a = instance('a');
    let finish!: () => void;
    const hung = new Promise<void>((resolve) => (finish = resolve));
    a.runner.register({
      ...purgeAgent(ranBy, 'a'),
      timeoutSeconds: 2,
      run: async () => {
        await hung;
        return { summary: 'late' };
      },
    });
    const outcome = a.runner.runNow('purge');
    await clock.advance(2_000);
    expect(await outcome).toMatchObject({ status: 'failed', error: 'timed out after 2 s' });
    finish();
    // The abandoned run settles (and releases the lock) without a record.
    for (let i = 0; i < 100 && (await opened.database.withExclusiveLock('agent:purge', async () => 0)).acquired !== true; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await lastRun()).toBeUndefined();
  });

  it('a success that cannot be recorded is still a success (logged); a scheduled run that cannot read the record fails', async () => {
    const a = instance('a');
    a.runner.register(purgeAgent([], 'a'));
    await sql`DROP TABLE agent_runs`.execute(opened.database.db);
    try {
      expect(await a.runner.runNow('purge')).toMatchObject({ status: 'success' });
      expect(a.warnings).toEqual(['agent run not recorded in agent_runs']);
      a.start();
      await clock.advance(INTERVAL_S * 1000, idle);
      expect(a.runner.statuses()[0]).toMatchObject({ status: 'failed', last_error: expect.stringMatching(/agent_runs/) as unknown });
    } finally {
      await sql`CREATE TABLE agent_runs (name text PRIMARY KEY, last_success_at_ms bigint NOT NULL, ran_by text NOT NULL, run_kind text NOT NULL)`.execute(
        opened.database.db,
      );
    }
  });
});

describe("the app's runner", () => {
  it('records its cluster runs in agent_runs: `recsvc agents run` (an explicit run) counts for the serving instances', async () => {
    const app = await buildApp({ database: opened.database, rateLimit: null });
    try {
      expect(await app.agentRunner.runNow('database_maintenance')).toMatchObject({ status: 'success' });
      expect(await app.agentRunner.runNow('trending_refresh')).toMatchObject({ status: 'success' });
    } finally {
      await app.close();
    }
    const { rows } = await sql<{ name: string; run_kind: string }>`SELECT name, run_kind FROM agent_runs`.execute(opened.database.db);
    expect(rows).toEqual([{ name: 'database_maintenance', run_kind: 'explicit' }]);
  });
});

describe('agents that are not once per cluster', () => {
  it('an instance agent runs on every instance at its own interval, and records nothing', async () => {
    const ranBy: string[] = [];
    startedPair(ranBy, {
      a: { scope: 'instance', initialDelaySeconds: 60 },
      b: { scope: 'instance', initialDelaySeconds: 80 },
    });
    await clock.advance(5 * INTERVAL_S * 1000, idle);
    expect(ranBy.filter((who) => who === 'a')).toHaveLength(5);
    expect(ranBy.filter((who) => who === 'b')).toHaveLength(4);
    expect(await lastRun()).toBeUndefined();
  });

  it('one instance alone runs its cluster agent every interval, as before', async () => {
    const ranBy: string[] = [];
    const a = instance('a');
    a.runner.register(purgeAgent(ranBy, 'a', { jitterSeconds: 0 }));
    a.start();
    await clock.advance(10 * INTERVAL_S * 1000, idle);
    expect(ranBy).toHaveLength(10);
    expect(a.runner.statuses()[0]).toMatchObject({ skips: 0 });
  });
});
