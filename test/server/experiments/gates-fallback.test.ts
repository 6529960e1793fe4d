/**
 * Variant weights change what a user is served; the gates agent blocks a failing
 * treatment, and its users then get the control's ranking (still counted in their variant).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assignVariant } from '../../../src/experiments/assignment.js';
import { makeStatus } from '../../helpers/mastodon-fixtures.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { experimentBody } from './experiment-bodies.js';

const BASE = '/api/v1/analytics/experiments';
let t: TestApp;
let admin: Record<string, string>;

beforeEach(async () => {
  t = await createTestApp();
  admin = await t.adminHeaders();
  const statuses = [
    // author1 writes old posts; the others write new ones: author-only and recency-only rankings disagree.
    ...Array.from({ length: 8 }, (_, i) => makeStatus({ n: i + 1, author: 'author1', ageHours: 40 + i })),
    ...Array.from({ length: 16 }, (_, i) => makeStatus({ n: i + 9, author: `author${2 + (i % 4)}`, ageHours: 1 + i * 0.5 })),
  ];
  expect((await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: admin, payload: { statuses } })).statusCode).toBe(201);
});
afterEach(async () => t.close());

const body = experimentBody({ minimum_sample_size: 1 });

async function startExperiment(payload = body): Promise<number> {
  const id = (await t.app.inject({ method: 'POST', url: BASE, headers: admin, payload })).json().data.id;
  await t.app.inject({ method: 'POST', url: `${BASE}/${id}/start`, headers: admin });
  return id;
}

/** Two users with the same history (a favourite of author1's oldest post), one per variant. */
async function twins(id: number): Promise<{ control: string; treatment: string }> {
  const candidates = Array.from({ length: 30 }, (_, i) => `twin${i}`);
  const variant = (u: string) => assignVariant(u, id, body.variants).variant?.name;
  const pair = {
    control: candidates.find((u) => variant(u) === 'control') as string,
    treatment: candidates.find((u) => variant(u) === 'treatment') as string,
  };
  for (const user of Object.values(pair)) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/interactions',
      headers: await t.userHeaders(user),
      payload: { user_id: user, post_id: makeStatus({ n: 8 }).id, action_type: 'favorite' },
    });
    expect(res.statusCode).toBe(201);
  }
  return pair;
}

async function ranking(user: string): Promise<string[]> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/v1/recommendations?user_id=${user}&limit=6`,
    headers: await t.userHeaders(user),
  });
  expect(res.statusCode).toBe(200);
  return res.json().map((p: { id: string }) => p.id);
}

describe('variant rankings', () => {
  it("ranks two users with the same history differently when their variants' weights differ", async () => {
    const id = await startExperiment();
    const { control, treatment } = await twins(id);
    const authorFirst = await ranking(control);
    const recencyFirst = await ranking(treatment);
    expect(authorFirst).not.toEqual(recencyFirst);
    const author1Posts = new Set(Array.from({ length: 8 }, (_, i) => makeStatus({ n: i + 1 }).id));
    expect(author1Posts.has(authorFirst[0] as string)).toBe(true);
    expect(author1Posts.has(recencyFirst[0] as string)).toBe(false);
  });

  it('blocks a treatment failing a gate (agent) and then serves its users the control ranking', async () => {
    // A CTR gate of 0.5, so that a handful of users can fail it decisively (below).
    const id = await startExperiment(experimentBody({ minimum_sample_size: 1, gates: { min_click_through_rate: 0.5 } }));
    const { control, treatment } = await twins(id);
    const controlList = await ranking(control);
    const before = await ranking(treatment);
    expect(before).not.toEqual(controlList);
    // The control clicks, the treatment's 25 users never do: CTR 0. With 0 clicks the delta method's
    // spread says nothing (it would give [0, 0], issue 30), so the score interval counts each user's
    // 6 impressions as one (the worst-case design effect): 25 effective units, the interval's upper
    // end about 0.3, below 0.5: min_click_through_rate fails.
    const others = Array.from({ length: 120 }, (_, i) => `other${i}`)
      .filter((u) => assignVariant(u, id, body.variants).variant?.name === 'treatment')
      .slice(0, 24);
    expect(others).toHaveLength(24);
    for (const user of others) await ranking(user);
    const events = [
      { type: 'click', user_id: control, post_id: controlList[0] },
      { type: 'click', user_id: control, post_id: controlList[1] },
    ];
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/analytics/events', headers: admin, payload: { events } })).statusCode).toBe(
      201,
    );

    const gates = (await t.app.inject({ method: 'GET', url: `${BASE}/${id}/gates`, headers: admin })).json().data;
    const treatmentGates = gates.variants.find((v: { name: string }) => v.name === 'treatment');
    expect(treatmentGates.verdict).toBe('fail');
    expect(treatmentGates.gates.find((g: { gate: string }) => g.gate === 'min_click_through_rate')).toMatchObject({
      value: 0,
      ci_low: 0,
      ci_high: expect.closeTo(0.3, 1),
      threshold: 0.5,
      rule: 'bounds',
      verdict: 'fail',
    });
    expect(gates.verdict).toBe('fail');

    await t.app.agentRunner.runNow('experiment_gates');
    const experiment = (await t.app.inject({ method: 'GET', url: `${BASE}/${id}`, headers: admin })).json().data;
    expect(experiment.variants.map((v: { name: string; blocked: boolean }) => [v.name, v.blocked])).toEqual([
      ['control', false],
      ['treatment', true],
    ]);
    expect(experiment.variants[1].blocked_reason).toMatch(/min_click_through_rate: 0 \[0, 0\.\d+\] vs >= 0\.5/);
    expect(await ranking(treatment)).toEqual(controlList);

    const status = (await t.app.inject({ method: 'GET', url: `${BASE}/${id}/status`, headers: admin })).json().data;
    expect(status.variants.find((v: { name: string }) => v.name === 'treatment')).toMatchObject({ users_assigned: 25, blocked: true });
    const metrics = (await t.app.inject({ method: 'GET', url: `${BASE}/${id}/metrics`, headers: admin })).json().data;
    expect(metrics.variants[1].performance.requests).toBe(26);

    const agents = (await t.app.inject({ method: 'GET', url: '/api/v1/agents/status' })).json().agents;
    expect(agents.find((a: { name: string }) => a.name === 'experiment_gates')).toMatchObject({ executions: 1, last_error: null });
    const prometheus = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(prometheus).toMatch(/service_agent_executions\{agent_type="experiment_gates",status="success"\} 1/);
  });

  it('never blocks on inconclusive gates or the control', async () => {
    const id = (
      await t.app.inject({ method: 'POST', url: BASE, headers: admin, payload: experimentBody({ minimum_sample_size: 100 }) })
    ).json().data.id;
    await t.app.inject({ method: 'POST', url: `${BASE}/${id}/start`, headers: admin });
    await twins(id);
    await t.app.agentRunner.runNow('experiment_gates');
    const gates = (await t.app.inject({ method: 'GET', url: `${BASE}/${id}/gates`, headers: admin })).json().data;
    expect(gates.verdict).toBe('inconclusive');
    expect(gates.variants.every((v: { blocked: boolean }) => !v.blocked)).toBe(true);
  });
});
