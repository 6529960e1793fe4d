/**
 * /api/v1/agents/status and /metrics after real runs through the app: every agent serve
 * schedules is listed, a failing agent shows `failed` with its error and is counted with
 * status="failed", and the service keeps answering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { parsePrometheusText } from '../../helpers/prometheus.js';

interface StatusRecord {
  name: string;
  status: string;
  last_execution: string | null;
  last_error: string | null;
  last_summary: string | null;
  executions: number;
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    configure: (app) => {
      // The way a feature adds an agent: one register call.
      app.agentRunner.register({
        name: 'always_failing',
        intervalSeconds: 60,
        run() {
          throw new Error('the index is corrupt');
        },
      });
    },
  });
});
afterAll(async () => {
  await t.close();
});

async function statuses(): Promise<StatusRecord[]> {
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/agents/status' });
  expect(res.statusCode).toBe(200);
  return res.json<{ agents: StatusRecord[] }>().agents;
}

async function executions(agent: string, status: string): Promise<number> {
  const families = parsePrometheusText((await t.app.inject({ method: 'GET', url: '/metrics' })).body);
  const samples = families.get('service_agent_executions')?.samples ?? [];
  return samples.filter((s) => s.labels.agent_type === agent && s.labels.status === status).reduce((sum, s) => sum + s.value, 0);
}

describe('agents status', () => {
  it('lists every agent serve schedules, idle and never run', async () => {
    const agents = await statuses();
    expect(agents.map((a) => a.name)).toEqual(
      expect.arrayContaining([
        'always_failing',
        'cache_warmer',
        'candidate_pool_refresh',
        'database_maintenance',
        'experiment_gates',
        'oauth_maintenance',
        'trending_refresh',
      ]),
    );
    expect(agents.every((a) => a.status === 'idle' && a.last_execution === null && a.executions === 0)).toBe(true);
  });

  it('shows each built-in agent succeeding with what it did, counted as success', async () => {
    for (const agent of await statuses()) {
      if (agent.name === 'always_failing') continue;
      const before = await executions(agent.name, 'success');
      const outcome = await t.app.agentRunner.runNow(agent.name);
      expect(outcome, agent.name).toMatchObject({ status: 'success' });
      expect(await executions(agent.name, 'success')).toBe(before + 1);
    }
    const byName = new Map((await statuses()).map((a) => [a.name, a]));
    expect(byName.get('trending_refresh')).toMatchObject({ status: 'idle', executions: 1, last_summary: 'recomputed 0 trending posts' });
    expect(byName.get('database_maintenance')!.last_summary).toMatch(/^purged 0 dead tokens/);
    expect(byName.get('experiment_gates')!.last_summary).toBe('checked 0 treatment variants: 0 failing, 0 newly blocked');
    expect(byName.get('oauth_maintenance')!.last_summary).toBe('purged 0 expired OAuth records');
    expect(byName.get('cache_warmer')!.last_summary).toBe('warmed 0 profiles (0 already cached) of 0 active users');
  });

  it('shows a failing agent as failed with its error, counts it as failed, and keeps serving', async () => {
    const before = await executions('always_failing', 'failed');
    await t.app.agentRunner.runNow('always_failing');
    await t.app.agentRunner.runNow('always_failing');
    const failing = (await statuses()).find((a) => a.name === 'always_failing')!;
    expect(failing).toMatchObject({ status: 'failed', last_error: 'the index is corrupt', executions: 2, consecutive_failures: 2 });
    expect(failing.last_execution).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(await executions('always_failing', 'failed')).toBe(before + 2);
    expect(await executions('always_failing', 'success')).toBe(0);
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });
});
