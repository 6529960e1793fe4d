/**
 * Primary metric, guardrails and the stored gate rule through the API on a real app and
 * database: validated at creation (400 naming the field), stored, returned by GET and the
 * export, used by the analysis (roles, one-sided guardrails, the decision from the primary) and
 * by the gates endpoint and agent (gate_rule unless `?rule=` overrides); assignment and
 * by_instance key users by their canonical id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enforceGates } from '../../../server/experiments/gates.agent.js';
import { bucketOf } from '../../../src/experiments/assignment.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { experimentBody } from './experiment-bodies.js';

const BASE = '/api/v1/analytics/experiments';
let t: TestApp;
let admin: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.adminHeaders();
});
afterAll(async () => t.close());

const create = (body: object) => t.app.inject({ method: 'POST', url: BASE, headers: admin, payload: body });
const get = (path: string) => t.app.inject({ method: 'GET', url: `${BASE}${path}`, headers: admin });

describe('creating with a primary metric, guardrails and a gate rule', () => {
  it('stores them and returns them from create, GET and the list', async () => {
    const created = await create(
      experimentBody({ primary_metric: 'interaction_rate', guardrail_metrics: ['bounce_rate', 'session_duration'], gate_rule: 'point' }),
    );
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id;
    const expected = { primary_metric: 'interaction_rate', guardrail_metrics: ['bounce_rate', 'session_duration'], gate_rule: 'point' };
    expect(created.json().data).toMatchObject(expected);
    expect((await get(`/${id}`)).json().data).toMatchObject(expected);
    expect((await get('')).json().data.find((e: { id: number }) => e.id === id)).toMatchObject(expected);
  });

  it('defaults to click_through_rate, the guardrails bounce_rate and user_satisfaction (never the primary), and bounds', async () => {
    const plain = (await create(experimentBody())).json().data;
    expect(plain).toMatchObject({
      primary_metric: 'click_through_rate',
      guardrail_metrics: ['bounce_rate', 'user_satisfaction'],
      gate_rule: 'bounds',
    });
    const bouncePrimary = (await create(experimentBody({ primary_metric: 'bounce_rate' }))).json().data;
    expect(bouncePrimary.guardrail_metrics).toEqual(['user_satisfaction']);
    const none = (await create(experimentBody({ guardrail_metrics: [] }))).json().data;
    expect(none.guardrail_metrics).toEqual([]);
  });

  it('refuses an unknown guardrail, the primary as a guardrail, a repeated guardrail and an unknown gate rule (400 naming the field)', async () => {
    const cases: [object, RegExp][] = [
      [{ guardrail_metrics: ['p95_latency_ms'] }, /^guardrail_metrics/],
      [{ guardrail_metrics: ['click_through_rate'] }, /^guardrail_metrics\[0\]$/],
      [{ primary_metric: 'user_satisfaction', guardrail_metrics: ['bounce_rate', 'user_satisfaction'] }, /^guardrail_metrics\[1\]$/],
      [{ guardrail_metrics: ['bounce_rate', 'bounce_rate'] }, /^guardrail_metrics/],
      [{ gate_rule: 'median' }, /^gate_rule$/],
    ];
    for (const [overrides, field] of cases) {
      const response = await create({ ...experimentBody(), ...overrides });
      expect(response.statusCode, JSON.stringify(overrides)).toBe(400);
      expect(response.json().field, JSON.stringify(overrides)).toMatch(field);
    }
  });
});

describe('an ACTIVE experiment with users from several instances', () => {
  let id: number;
  const spellings = ['@Alice@Mastodon.Social', 'alice@mastodon.social', 'acct:alice@mastodon.social'];

  beforeAll(async () => {
    const body = experimentBody({ guardrail_metrics: ['bounce_rate', 'session_duration'], gate_rule: 'point', minimum_sample_size: 2 });
    id = (await create(body)).json().data.id;
    await t.app.inject({ method: 'POST', url: `${BASE}/${id}/start`, headers: admin });
    const policy = t.app.experiments.rankingPolicy;
    for (let i = 0; i < 30; i++) await policy.choose(`user${i}@mastodon.social`);
    for (let i = 0; i < 20; i++) await policy.choose(`u${i}@Fosstodon.ORG`);
    for (let i = 0; i < 10; i++) await policy.choose(`local${i}`);
  });

  it('labels each comparison with its role and draws the decision from the primary metric', async () => {
    const analysis = (await get(`/${id}/analysis`)).json().data;
    expect(analysis.guardrail_metrics).toEqual(['bounce_rate', 'session_duration']);
    expect(analysis.metric_roles.click_through_rate).toBe('primary');
    expect(analysis.metric_roles.user_satisfaction).toBe('exploratory');
    const roles = Object.fromEntries(analysis.comparisons.map((c: { metric: string; role: string }) => [c.metric, c.role]));
    expect(roles).toMatchObject({ click_through_rate: 'primary', bounce_rate: 'guardrail', interaction_rate: 'exploratory' });
    expect(analysis.guardrails.map((g: { metric: string }) => g.metric)).toEqual(['bounce_rate', 'session_duration']);
    expect(analysis.guardrails[0]).toMatchObject({ harm_direction: 'increase', correction: 'holm', harm_detected: false });
    expect(analysis.decision).toEqual({
      metric: 'click_through_rate',
      variants: [{ variant: 'treatment', outcome: 'no_data', guardrails_harmed: [] }],
    });
  });

  it('breaks users down by the instance of their canonical id when asked (?by_instance=true)', async () => {
    expect((await get(`/${id}/analysis`)).json().data).not.toHaveProperty('by_instance');
    const analysis = (await get(`/${id}/analysis?by_instance=true`)).json().data;
    const byInstance = Object.fromEntries(
      analysis.by_instance.map((row: { instance: string; users: number }) => [row.instance, row.users]),
    );
    expect(byInstance).toEqual({ 'mastodon.social': 30, 'fosstodon.org': 20, local: 10 });
    expect(analysis.by_instance[0].srm).toBeNull();
  });

  it('assigns every spelling of one account the variant of its canonical id', async () => {
    const ranges = bucketOf('alice@mastodon.social', id) < 50 ? 'control' : 'treatment';
    for (const spelling of spellings) {
      expect((await t.app.experiments.rankingPolicy.choose(spelling)).enrolment?.variant).toBe(ranges);
    }
  });

  it('exports the roles and the gate rule on the experiment line and the instance on user lines', async () => {
    const lines = (await get(`/${id}/export`)).body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ type: 'experiment', guardrail_metrics: ['bounce_rate', 'session_duration'], gate_rule: 'point' });
    const instances = new Set(lines.filter((l) => l.type === 'user').map((l) => l.instance));
    expect(instances).toEqual(new Set(['mastodon.social', 'fosstodon.org', 'local']));
  });

  it('judges the gates by the stored rule unless ?rule= overrides it, and so does the gate agent', async () => {
    expect((await get(`/${id}/gates`)).json().data.rule).toBe('point');
    expect((await get(`/${id}/gates?rule=bounds`)).json().data.rule).toBe('bounds');
    const logged: { rule?: string; experiment?: number }[] = [];
    const feature = t.app.experiments;
    await enforceGates(
      {
        db: t.database.db,
        experiments: feature.experiments,
        results: feature.results,
        runtime: feature.runtime,
        now: Date.now,
        log: { info: (entry: object) => logged.push(entry), warn: () => undefined },
      },
      new Map(),
    );
    expect(logged.find((entry) => entry.experiment === id)?.rule).toBe('point');
  });
});
