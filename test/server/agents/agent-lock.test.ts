/**
 * The runner with a database lock (here the in-process one SQLite uses; test/postgres/
 * agent-lock.test.ts runs the PostgreSQL advisory lock across two connections): a cluster
 * agent whose lock someone else holds is skipped — not failed, not counted as an execution —
 * an instance agent runs regardless, and a timed-out run keeps the lock until it settles.
 * Also: every agent the app registers declares its scope.
 */
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { AgentRunner, type Agent, type AgentRunContext } from '../../../server/platform/agents/agent-runner.js';
import { openSqlite } from '../../../server/platform/db/connection.js';
import type { ExclusiveLock } from '../../../server/platform/db/database-handle.js';
import { exclusiveLock } from '../../../server/platform/db/exclusive-lock.js';
import { migrateToLatest } from '../../../server/platform/db/migrate.js';
import { createServiceMetrics, type ServiceMetrics } from '../../../server/platform/metrics/service-metrics.js';
import { parsePrometheusText } from '../../helpers/prometheus.js';
import { ManualClock, settle } from './manual-clock.js';

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((res) => (resolve = res));
  return { promise, resolve };
}

function setup(lock: ExclusiveLock = exclusiveLock()) {
  const clock = new ManualClock();
  const metrics = createServiceMetrics();
  const log = { error: () => undefined, warn: () => undefined };
  const runner = new AgentRunner(metrics, log, { clock, lock, defaultTimeoutSeconds: 30 });
  return { clock, metrics, runner, lock };
}

/** Holds `name` in `lock` (as another instance would) until the returned release is called. */
async function holdElsewhere(lock: ExclusiveLock, name: string): Promise<() => Promise<void>> {
  const gate = deferred();
  const entered = deferred();
  const held = lock(name, async () => {
    entered.resolve();
    await gate.promise;
  });
  await entered.promise;
  return async () => {
    gate.resolve();
    await held;
  };
}

async function executions(metrics: ServiceMetrics, agent: string, status: string): Promise<number> {
  const samples = parsePrometheusText(await metrics.registry.metrics()).get('service_agent_executions')?.samples ?? [];
  return samples.filter((s) => s.labels.agent_type === agent && s.labels.status === status).reduce((sum, s) => sum + s.value, 0);
}

function counting(name: string, extra: Partial<Agent> = {}, run?: (context: AgentRunContext) => Promise<void>): Agent & { calls: number } {
  const agent: Agent & { calls: number } = {
    name,
    intervalSeconds: 60,
    calls: 0,
    async run(context) {
      agent.calls += 1;
      await run?.(context);
      return { summary: `run ${agent.calls}` };
    },
    ...extra,
  };
  return agent;
}

describe('agent runner with a lock', () => {
  it('skips a cluster agent whose lock is held elsewhere: idle with the reason, counted as skipped, then runs once it is free', async () => {
    const { clock, metrics, runner, lock } = setup();
    const agent = counting('purge', { scope: 'cluster' });
    runner.register(agent);
    const release = await holdElsewhere(lock, 'agent:purge');

    const skipped = await runner.runNow('purge');
    expect(skipped).toMatchObject({ name: 'purge', status: 'skipped', reason: expect.stringContaining('agent:purge') });
    expect(agent.calls).toBe(0);
    expect(runner.statuses()[0]).toMatchObject({
      status: 'idle',
      executions: 0,
      last_execution: null,
      consecutive_failures: 0,
      skips: 1,
      last_skipped_at: new Date(clock.now()).toISOString(),
      last_skip_reason: skipped.reason,
    });
    expect(await executions(metrics, 'purge', 'skipped')).toBe(1);
    expect(await executions(metrics, 'purge', 'failed')).toBe(0);

    await release();
    expect(await runner.runNow('purge')).toMatchObject({ status: 'success', report: { summary: 'run 1' } });
    expect(runner.statuses()[0]).toMatchObject({ status: 'idle', executions: 1, skips: 1 });
  });

  it('treats an agent that declares no scope as a cluster agent', async () => {
    const { runner, lock } = setup();
    runner.register(counting('undeclared'));
    const release = await holdElsewhere(lock, 'agent:undeclared');
    expect(await runner.runNow('undeclared')).toMatchObject({ status: 'skipped' });
    await release();
  });

  it('runs an instance agent even while its name is locked elsewhere', async () => {
    const { runner, lock } = setup();
    const agent = counting('warm', { scope: 'instance' });
    runner.register(agent);
    const release = await holdElsewhere(lock, 'agent:warm');
    expect(await runner.runNow('warm')).toMatchObject({ status: 'success' });
    expect(agent.calls).toBe(1);
    await release();
  });

  it('a skip leaves a failed agent failed, with its backoff', async () => {
    const { runner, lock } = setup();
    let fail = true;
    runner.register(
      counting('flaky', { scope: 'cluster' }, async () => {
        if (fail) throw new Error('broken');
      }),
    );
    await runner.runNow('flaky');
    const release = await holdElsewhere(lock, 'agent:flaky');
    expect(await runner.runNow('flaky')).toMatchObject({ status: 'skipped' });
    expect(runner.statuses()[0]).toMatchObject({ status: 'failed', last_error: 'broken', consecutive_failures: 1, skips: 1 });
    await release();
    fail = false;
    expect(await runner.runNow('flaky')).toMatchObject({ status: 'success' });
    expect(runner.statuses()[0]).toMatchObject({ status: 'idle', consecutive_failures: 0 });
  });

  it('keeps the schedule after a skipped run', async () => {
    const { clock, runner, lock } = setup();
    const agent = counting('scheduled', { scope: 'cluster', intervalSeconds: 10 });
    runner.register(agent);
    runner.start();
    const release = await holdElsewhere(lock, 'agent:scheduled');
    await clock.advance(10_000);
    expect(agent.calls).toBe(0);
    expect(runner.statuses()[0]).toMatchObject({ skips: 1 });
    expect(clock.dueIn()).toEqual([10_000]);
    await release();
    await clock.advance(10_000);
    expect(agent.calls).toBe(1);
    await runner.stop();
  });

  it('holds the lock until a timed-out run settles, so no other instance starts it meanwhile', async () => {
    const { clock, runner, lock } = setup();
    const hang = deferred();
    runner.register(counting('slow_purge', { scope: 'cluster', timeoutSeconds: 2 }, () => hang.promise));
    const outcome = runner.runNow('slow_purge');
    await clock.advance(2_000);
    expect(await outcome).toMatchObject({ status: 'failed', error: 'timed out after 2 s' });
    expect(await lock('agent:slow_purge', () => Promise.resolve('ran'))).toMatchObject({ acquired: false });
    hang.resolve();
    await settle();
    expect(await lock('agent:slow_purge', () => Promise.resolve('ran'))).toEqual({ acquired: true, value: 'ran' });
  });

  it('runs every agent unlocked when the runner has no lock', async () => {
    const metrics = createServiceMetrics();
    const runner = new AgentRunner(metrics, { error: () => undefined, warn: () => undefined });
    runner.register(counting('plain', { scope: 'cluster' }));
    expect(await runner.runNow('plain')).toMatchObject({ status: 'success' });
  });
});

describe('agent scopes', () => {
  it('every agent the app registers declares whether it changes shared data (cluster) or its own memory (instance)', async () => {
    const database = openSqlite(':memory:');
    await migrateToLatest(database.db);
    const app = await buildApp({ database, rateLimit: null });
    try {
      const runner = app.agentRunner;
      const scopes = Object.fromEntries(runner.names().map((name) => [name, runner.find(name)!.scope]));
      expect(Object.values(scopes).every((scope) => scope === 'cluster' || scope === 'instance')).toBe(true);
      // The choices documented in the README (Scale-out): a change here is a decision to review.
      expect(scopes).toMatchObject({
        experiment_gates: 'cluster',
        retention: 'cluster',
        trending_refresh: 'instance',
        candidate_pool_refresh: 'instance',
        cache_warmer: 'instance',
      });
    } finally {
      await app.close();
      await database.close();
    }
  });
});
