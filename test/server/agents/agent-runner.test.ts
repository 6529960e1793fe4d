/**
 * The agent runner on a manual clock: status and metrics after real runs (a failing one
 * included), backoff delays, no overlapping runs, a hung run timed out, and a bounded stop.
 */
import { describe, expect, it } from 'vitest';
import { AgentRunner, type Agent, type AgentRunContext } from '../../../server/platform/agents/agent-runner.js';
import { retryDelayMs } from '../../../server/platform/agents/agent-schedule.js';
import { createServiceMetrics, type ServiceMetrics } from '../../../server/platform/metrics/service-metrics.js';
import { parsePrometheusText } from '../../helpers/prometheus.js';
import { ManualClock, settle } from './manual-clock.js';

function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void; reject(error: Error): void } {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function setup(options: { stopGraceMs?: number; random?: () => number } = {}) {
  const clock = new ManualClock();
  const metrics = createServiceMetrics();
  const logged: { level: string; message: string; object: object }[] = [];
  const log = {
    error: (object: object, message: string) => logged.push({ level: 'error', object, message }),
    warn: (object: object, message: string) => logged.push({ level: 'warn', object, message }),
  };
  const runner = new AgentRunner(metrics, log, {
    clock,
    retry: { baseMs: 5_000, maxMs: 30_000 },
    defaultTimeoutSeconds: 30,
    ...options,
  });
  return { clock, metrics, runner, logged };
}

async function executions(metrics: ServiceMetrics, agent: string, status: string): Promise<number> {
  const families = parsePrometheusText(await metrics.registry.metrics());
  const samples = families.get('service_agent_executions')?.samples ?? [];
  return samples.filter((s) => s.labels.agent_type === agent && s.labels.status === status).reduce((sum, s) => sum + s.value, 0);
}

/** An agent whose runs follow `behaviour`, counting its calls. */
function scripted(
  name: string,
  behaviour: (call: number, context: AgentRunContext) => ReturnType<Agent['run']>,
  extra: Partial<Agent> = {},
): Agent & { calls: number } {
  const agent: Agent & { calls: number } = {
    name,
    intervalSeconds: 60,
    calls: 0,
    run(context: AgentRunContext): ReturnType<Agent['run']> {
      agent.calls += 1;
      return behaviour(agent.calls, context);
    },
    ...extra,
  };
  return agent;
}

describe('agent runner: status and metrics', () => {
  it('records a successful run: idle, last_execution, summary, counted as success', async () => {
    const { clock, metrics, runner } = setup();
    runner.register(scripted('tidy', () => ({ summary: 'tidied 3 things' })));
    const outcome = await runner.runNow('tidy');
    expect(outcome).toMatchObject({ name: 'tidy', status: 'success', report: { summary: 'tidied 3 things' } });
    expect(runner.statuses()[0]).toMatchObject({
      name: 'tidy',
      status: 'idle',
      last_execution: new Date(clock.now()).toISOString(),
      last_success: new Date(clock.now()).toISOString(),
      last_error: null,
      last_summary: 'tidied 3 things',
      executions: 1,
      consecutive_failures: 0,
      next_run_at: null,
    });
    expect(await executions(metrics, 'tidy', 'success')).toBe(1);
    expect(await executions(metrics, 'tidy', 'failed')).toBe(0);
  });

  it('records a synchronous throw and an async rejection as failed runs with their errors, never rejecting', async () => {
    const { clock, metrics, runner, logged } = setup();
    runner.register(
      scripted('sync_thrower', () => {
        throw new Error('disk on fire');
      }),
    );
    runner.register(scripted('async_rejecter', async () => Promise.reject(new Error('upstream said no'))));
    await expect(runner.runNow('sync_thrower')).resolves.toMatchObject({ status: 'failed', error: 'disk on fire' });
    await expect(runner.runNow('async_rejecter')).resolves.toMatchObject({ status: 'failed', error: 'upstream said no' });
    const [sync, async] = runner.statuses();
    const at = new Date(clock.now()).toISOString();
    expect(sync).toMatchObject({ status: 'failed', last_error: 'disk on fire', last_error_at: at, last_execution: at, executions: 1 });
    expect(async).toMatchObject({ status: 'failed', last_error: 'upstream said no', consecutive_failures: 1 });
    expect(await executions(metrics, 'sync_thrower', 'failed')).toBe(1);
    expect(await executions(metrics, 'async_rejecter', 'failed')).toBe(1);
    expect(logged.filter((l) => l.level === 'error').map((l) => (l.object as { agent: string }).agent)).toEqual([
      'sync_thrower',
      'async_rejecter',
    ]);
  });

  it('clears the failure after a success', async () => {
    const { metrics, runner } = setup();
    runner.register(
      scripted('flaky', (call) => {
        if (call === 1) throw new Error('first time unlucky');
      }),
    );
    await runner.runNow('flaky');
    expect(runner.statuses()[0]).toMatchObject({ status: 'failed', consecutive_failures: 1 });
    await runner.runNow('flaky');
    expect(runner.statuses()[0]).toMatchObject({
      status: 'idle',
      last_error: null,
      last_error_at: null,
      consecutive_failures: 0,
      executions: 2,
    });
    expect(await executions(metrics, 'flaky', 'failed')).toBe(1);
    expect(await executions(metrics, 'flaky', 'success')).toBe(1);
  });

  it('refuses a second agent of the same name and an unknown name', () => {
    const { runner } = setup();
    runner.register(scripted('once', () => undefined));
    expect(() => runner.register(scripted('once', () => undefined))).toThrow(/registered twice/);
    expect(() => runner.runNow('nobody')).toThrow(/unknown agent nobody/);
  });
});

describe('agent runner: schedule and backoff', () => {
  it('runs every interval, retries failures after 5, 10, 20, 30, 30 s (capped), and returns to the interval after a success', async () => {
    const { clock, runner } = setup();
    let failing = true;
    const agent = scripted(
      'backoff',
      () => {
        if (failing) throw new Error('still broken');
      },
      { intervalSeconds: 20 },
    );
    runner.register(agent);
    runner.start();
    expect(clock.dueIn()).toEqual([20_000]);
    expect(runner.statuses()[0]!.next_run_at).toBe(new Date(clock.now() + 20_000).toISOString());

    const retries: number[] = [];
    await clock.advance(20_000);
    for (let i = 0; i < 5; i += 1) {
      const [delay] = clock.dueIn();
      retries.push(delay!);
      await clock.advance(delay!);
    }
    expect(agent.calls).toBe(6);
    expect(retries).toEqual([5_000, 10_000, 20_000, 30_000, 30_000]);
    expect(runner.statuses()[0]).toMatchObject({ status: 'failed', consecutive_failures: 6 });

    failing = false;
    await clock.advance(clock.dueIn()[0]!);
    expect(runner.statuses()[0]).toMatchObject({ status: 'idle', consecutive_failures: 0 });
    expect(clock.dueIn()).toEqual([20_000]);
    await runner.stop();
  });

  it('caps the backoff at the interval when that is longer than the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 50].map((n) => retryDelayMs(n, 45_000, { baseMs: 5_000, maxMs: 30_000 }))).toEqual([
      5_000, 10_000, 20_000, 40_000, 45_000, 45_000, 45_000,
    ]);
    expect(retryDelayMs(3, 60_000)).toBe(20_000);
    expect(retryDelayMs(20, 60_000)).toBe(15 * 60_000);
  });

  it('starts after the initial delay and spreads runs by the jitter', async () => {
    const { clock, runner } = setup({ random: () => 0.5 });
    const agent = scripted('jittery', () => undefined, { initialDelaySeconds: 2, jitterSeconds: 10 });
    runner.register(agent);
    runner.start();
    expect(clock.dueIn()).toEqual([2_000 + 5_000]);
    await clock.advance(7_000);
    expect(agent.calls).toBe(1);
    expect(clock.dueIn()).toEqual([60_000 + 5_000]);
    await runner.stop();
    expect(clock.dueIn()).toEqual([]);
    expect(runner.statuses()[0]!.next_run_at).toBeNull();
  });

  it('keeps other agents on schedule while one fails', async () => {
    const { clock, runner } = setup();
    const good = scripted('good', () => undefined);
    runner.register(
      scripted('bad', () => {
        throw new Error('nope');
      }),
    );
    runner.register(good);
    runner.start();
    await clock.advance(180_000);
    expect(good.calls).toBe(3);
    expect(runner.statuses().map((s) => [s.name, s.status])).toEqual([
      ['bad', 'failed'],
      ['good', 'idle'],
    ]);
    await runner.stop();
  });
});

describe('agent runner: overlap, hangs and stop', () => {
  it('never overlaps runs: a second request and a due timer join the run in flight', async () => {
    const { clock, runner } = setup();
    const gate = deferred();
    const agent = scripted('slow', () => gate.promise.then(() => ({ summary: 'done' })), { intervalSeconds: 1, timeoutSeconds: 600 });
    runner.register(agent);
    runner.start();
    const first = runner.runNow('slow');
    const second = runner.runNow('slow');
    expect(runner.statuses()[0]!.status).toBe('running');
    await clock.advance(5_000);
    expect(agent.calls).toBe(1);
    gate.resolve();
    expect(await first).toEqual(await second);
    await settle();
    expect(runner.statuses()[0]).toMatchObject({ status: 'idle', executions: 1 });
    await runner.stop();
  });

  it('fails a hung run at its timeout, aborts its signal, and does not start the agent again until it settles', async () => {
    const { clock, metrics, runner } = setup();
    const hang = deferred();
    const signals: AbortSignal[] = [];
    const agent = scripted(
      'hung',
      (call, { signal }) => {
        signals.push(signal);
        return call === 1 ? hang.promise : undefined;
      },
      { timeoutSeconds: 2 },
    );
    runner.register(agent);
    const outcome = runner.runNow('hung');
    await clock.advance(2_000);
    expect(await outcome).toMatchObject({ status: 'failed', error: 'timed out after 2 s' });
    expect(signals[0]!.aborted).toBe(true);
    expect(runner.statuses()[0]).toMatchObject({ status: 'failed', last_error: 'timed out after 2 s' });
    expect(await executions(metrics, 'hung', 'failed')).toBe(1);

    const blocked = await runner.runNow('hung');
    expect(blocked).toMatchObject({ status: 'failed', error: expect.stringContaining('still running') });
    expect(agent.calls).toBe(1);

    hang.resolve();
    await settle();
    expect(await runner.runNow('hung')).toMatchObject({ status: 'success' });
    expect(agent.calls).toBe(2);
  });

  it('stop() waits for a run in flight to finish', async () => {
    const { runner } = setup();
    const gate = deferred();
    let finished = false;
    runner.register(scripted('finisher', () => gate.promise.then(() => void (finished = true))));
    void runner.runNow('finisher');
    let stopped = false;
    const stopping = runner.stop().then(() => void (stopped = true));
    await settle();
    expect(stopped).toBe(false);
    gate.resolve();
    await stopping;
    expect(finished).toBe(true);
  });

  it('stop() gives up after its bound, aborting the run and logging it', async () => {
    const { clock, runner, logged } = setup({ stopGraceMs: 1_000 });
    const signals: AbortSignal[] = [];
    runner.register(
      scripted('stubborn', (_call, { signal }) => {
        signals.push(signal);
        return new Promise<void>(() => undefined);
      }),
    );
    void runner.runNow('stubborn');
    let stopped = false;
    const stopping = runner.stop().then(() => void (stopped = true));
    await clock.advance(999);
    expect(stopped).toBe(false);
    await clock.advance(1);
    await stopping;
    expect(signals[0]!.aborted).toBe(true);
    expect(logged).toContainEqual(expect.objectContaining({ level: 'warn', message: 'agent still running at shutdown: abandoned' }));
  });
});
