/**
 * Cluster agents on one instance at a time: two handles (as two `recsvc serve` processes)
 * on one PostgreSQL schema exclude each other through the advisory lock, per name; another
 * schema of the same database does not; a lost lock connection releases its locks and the
 * next lock reconnects. Through two real apps: a cluster agent is skipped (and says why at
 * /api/v1/agents/status) while the other instance runs it; an instance agent is not.
 * And once per interval across the cluster: two runners, one per handle, on a manual clock,
 * run a cluster agent once per interval between them (agent_runs), even when both are due at
 * the same instant; a failed run lets the other run; an explicit run counts.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentRunner, type Agent } from '../../server/platform/agents/agent-runner.js';
import { buildApp } from '../../server/app.js';
import { openDatabase, type DatabaseHandle } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { advisoryLockKey } from '../../server/platform/db/postgres-advisory-lock.js';
import { createServiceMetrics } from '../../server/platform/metrics/service-metrics.js';
import { ManualClock } from '../server/agents/manual-clock.js';
import { createTestSchema, postgresUnavailable, suiteTitle, type TestSchema } from './postgres-test-database.js';

const unavailable = await postgresUnavailable();

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((res) => (resolve = res));
  return { promise, resolve };
}

/** Holds `name` through `handle` until the returned release is called. */
async function hold(handle: DatabaseHandle, name: string): Promise<() => Promise<void>> {
  const gate = deferred();
  const entered = deferred();
  const held = handle.withExclusiveLock(name, async () => {
    entered.resolve();
    await gate.promise;
  });
  const first = await Promise.race([entered.promise.then(() => 'entered' as const), held]);
  if (first !== 'entered') throw new Error(`could not take ${name}: ${JSON.stringify(first)}`);
  return async () => {
    gate.resolve();
    await held;
  };
}

const ran = (): Promise<string> => Promise.resolve('ran');

/** Waits in real time (up to 5 s) until `done()` holds. */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** One instance's runner on `handle` (its lock and its agent_runs), on `clock`. */
function runnerOn(handle: DatabaseHandle, instance: string, clock: ManualClock): AgentRunner {
  const log = { error: () => undefined, warn: () => undefined };
  return new AgentRunner(createServiceMetrics(), log, { clock, lock: handle.withExclusiveLock, db: handle.db, instance });
}

/** A cluster agent `name` that logs who ran it into `ranBy` (and fails while `failing()`). */
function clusterAgent(name: string, ranBy: string[], who: string, extra: Partial<Agent> = {}, failing = (): boolean => false): Agent {
  return {
    name,
    intervalSeconds: 60,
    scope: 'cluster',
    run() {
      if (failing()) throw new Error(`${who} is broken`);
      ranBy.push(who);
    },
    ...extra,
  };
}

/** Every runner has finished its tick and scheduled the next one. */
const scheduledAgain = (runners: AgentRunner[]) => (): boolean =>
  runners.every((runner) => runner.statuses().every((status) => status.next_run_at !== null));

describe.skipIf(unavailable !== undefined)(suiteTitle('agents on one instance at a time', unavailable), () => {
  let schema: TestSchema;
  let other: TestSchema;
  let a: DatabaseHandle;
  let b: DatabaseHandle;

  beforeAll(async () => {
    schema = await createTestSchema();
    other = await createTestSchema();
    a = await openDatabase(schema.url);
    b = await openDatabase(schema.url);
    await migrateToLatest(a.db);
  }, 60_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await schema?.drop();
    await other?.drop();
  });

  it('a name held by one instance is refused to another, without waiting; other names are free', async () => {
    const release = await hold(a, 'agent:retention');
    expect(await b.withExclusiveLock('agent:retention', ran)).toEqual({
      acquired: false,
      reason: expect.stringContaining('held by another instance') as unknown,
    });
    expect(await b.withExclusiveLock('agent:experiment_gates', ran)).toEqual({ acquired: true, value: 'ran' });
    await release();
    expect(await b.withExclusiveLock('agent:retention', ran)).toEqual({ acquired: true, value: 'ran' });
  });

  it('is released when the work fails', async () => {
    await expect(a.withExclusiveLock('agent:failing', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await b.withExclusiveLock('agent:failing', ran)).toEqual({ acquired: true, value: 'ran' });
  });

  it('does not exclude a deployment in another schema of the same database', async () => {
    const elsewhere = await openDatabase(other.url);
    const release = await hold(a, 'agent:retention');
    try {
      expect(await elsewhere.withExclusiveLock('agent:retention', ran)).toEqual({ acquired: true, value: 'ran' });
    } finally {
      await release();
      await elsewhere.close();
    }
  });

  it('a lost lock connection releases its locks, and the next lock reconnects', async () => {
    const release = await hold(a, 'agent:lost');
    const key = advisoryLockKey(schema.name, 'agent:lost');
    const holder = await schema.admin.query<{ pid: number }>(
      `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND ((classid::bigint << 32) | objid::bigint) = $1::bigint`,
      [key],
    );
    expect(holder.rows).toHaveLength(1);
    await schema.admin.query('SELECT pg_terminate_backend($1)', [holder.rows[0]!.pid]);
    // The server released it with the session: the other instance may take it.
    let taken: unknown;
    for (let i = 0; i < 50 && (taken as { acquired?: boolean } | undefined)?.acquired !== true; i += 1) {
      taken = await b.withExclusiveLock('agent:lost', ran);
      if ((taken as { acquired: boolean }).acquired !== true) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(taken).toEqual({ acquired: true, value: 'ran' });
    await release();
    expect(await a.withExclusiveLock('agent:lost', ran)).toEqual({ acquired: true, value: 'ran' });
  });

  it('through two apps: a cluster agent running on one is skipped on the other; an instance agent is not', async () => {
    const first: FastifyInstance = await buildApp({ database: a, rateLimit: null });
    const second: FastifyInstance = await buildApp({ database: b, rateLimit: null });
    try {
      // The first instance is running these agents (the lock is what its runner would take).
      const releaseRetention = await hold(a, 'agent:retention');
      const releaseWarmer = await hold(a, 'agent:cache_warmer');
      try {
        const skipped = await second.agentRunner.runNow('retention');
        expect(skipped).toMatchObject({ status: 'skipped', reason: expect.stringContaining('another instance') as unknown });
        expect(await second.agentRunner.runNow('cache_warmer')).toMatchObject({ status: 'success' });
        const res = await second.inject({ method: 'GET', url: '/api/v1/agents/status' });
        const retention = res.json<{ agents: Record<string, unknown>[] }>().agents.find((agent) => agent.name === 'retention');
        expect(retention).toMatchObject({ status: 'idle', executions: 0, skips: 1, last_skip_reason: skipped.reason });
        const metrics = await second.inject({ method: 'GET', url: '/metrics' });
        expect(metrics.body).toMatch(/service_agent_executions\{[^}]*agent_type="retention"[^}]*status="skipped"[^}]*\} 1/);
      } finally {
        await releaseRetention();
        await releaseWarmer();
      }
      expect(await second.agentRunner.runNow('retention')).toMatchObject({ status: 'success' });
      // The app's runner records its runs in the shared agent_runs (an explicit run, here).
      const recorded = await schema.admin.query<{ run_kind: string }>(
        `SELECT run_kind FROM ${schema.name}.agent_runs WHERE name = 'retention'`,
      );
      expect(recorded.rows).toEqual([{ run_kind: 'explicit' }]);

      // And the other way round: a run in flight on the second app holds the lock against the first.
      const gate = deferred();
      const started = deferred();
      for (const app of [first, second]) {
        app.agentRunner.register({
          name: 'probe',
          intervalSeconds: 60,
          scope: 'cluster',
          run: async () => {
            started.resolve();
            await gate.promise;
          },
        });
      }
      const running = second.agentRunner.runNow('probe');
      await started.promise;
      expect(await first.agentRunner.runNow('probe')).toMatchObject({ status: 'skipped' });
      gate.resolve();
      expect(await running).toMatchObject({ status: 'success' });
      expect(await first.agentRunner.runNow('probe')).toMatchObject({ status: 'success' });
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('two instances run a cluster agent once per interval between them, not once each, even when both are due at the same instant', async () => {
    const clock = new ManualClock();
    const ranBy: string[] = [];
    const first = runnerOn(a, 'a', clock);
    const second = runnerOn(b, 'b', clock);
    first.register(clusterAgent('once_per_interval', ranBy, 'a'));
    second.register(clusterAgent('once_per_interval', ranBy, 'b'));
    first.start();
    second.start();
    try {
      for (let interval = 1; interval <= 10; interval += 1) {
        // Both timers fire before either run has reached the database: they race for the lock.
        await clock.advance(60_000);
        await until(scheduledAgain([first, second]));
      }
      expect(ranBy).toHaveLength(10);
      const [one, two] = [first.statuses()[0]!, second.statuses()[0]!];
      expect(one.executions + two.executions).toBe(10);
      expect(one.skips + two.skips).toBe(10);
      expect(one.consecutive_failures + two.consecutive_failures).toBe(0);
    } finally {
      await first.stop();
      await second.stop();
    }
  });

  it('a failed run lets the other instance run it; an explicit run counts as the cluster run', async () => {
    const clock = new ManualClock();
    const ranBy: string[] = [];
    let broken = true;
    const first = runnerOn(a, 'a', clock);
    const second = runnerOn(b, 'b', clock);
    first.register(clusterAgent('takes_turns', ranBy, 'a', { initialDelaySeconds: 60 }, () => broken));
    second.register(clusterAgent('takes_turns', ranBy, 'b', { initialDelaySeconds: 80 }));
    const idle = scheduledAgain([first, second]);
    first.start();
    second.start();
    try {
      await clock.advance(60_000, idle);
      expect(first.statuses()[0]).toMatchObject({ status: 'failed', consecutive_failures: 1 });
      // a's retries fail at 65 and 75; b is due at 80 and runs: nothing recorded stopped it.
      await clock.advance(20_000, idle);
      expect(ranBy).toEqual(['b']);
      broken = false;
      // At 100 an operator runs it on a (recsvc agents run): it runs though b ran 20 s ago.
      await clock.advance(20_000, idle);
      expect(await first.runNow('takes_turns')).toMatchObject({ status: 'success' });
      expect(ranBy).toEqual(['b', 'a']);
      // b's run at 140 is 40 s after it: skipped, naming the explicit run on a.
      await clock.advance(40_000, idle);
      expect(ranBy).toEqual(['b', 'a']);
      expect(second.statuses()[0]!.last_skip_reason).toBe(
        `ran on another instance (a) at ${new Date(clock.now() - 40_000).toISOString()} (an explicit run), within its 60 s interval`,
      );
    } finally {
      await first.stop();
      await second.stop();
    }
  });
});
