/**
 * An experiment end to end through HTTP: create and start it, serve recommendations to
 * simulated users, post their events, interactions and feedback, and check that status,
 * metrics, analysis, gates and the export reflect exactly what was sent (expected numbers
 * are computed here from the sent data, with the same src/experiments analysis).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeExperiment } from '../../../src/experiments/stats/analysis.js';
import { assignVariant } from '../../../src/experiments/assignment.js';
import { parseJsonlExport } from '../../../src/experiments/io/export-format.js';
import { gateInputOptionsFor, gateInputsFromData } from '../../../src/experiments/gates/gate-inputs.js';
import { evaluateGates } from '../../../src/experiments/gates/gates.js';
import { COUNT_KEYS, emptyCounts, type UserCounts } from '../../../src/experiments/metrics.js';
import { createAccumulators } from '../../../src/experiments/stats/variant-accumulator.js';
import { makeStatus } from '../../helpers/mastodon-fixtures.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { experimentBody } from './experiment-bodies.js';

const BASE = '/api/v1/analytics/experiments';
const USERS = Array.from({ length: 40 }, (_, i) => `u${String(i).padStart(2, '0')}`);
// Session timestamps are client clocks: they must fall inside the skew window (24 h behind receipt at most).
const T0 = Date.now() - 3_600_000;

interface Served {
  id: string;
  ranking_score: number;
  recommendation_metadata: { reason_code: string };
}

let t: TestApp;
let admin: Record<string, string>;
let id: number;
const expected = new Map<string, UserCounts>();
const cold = new Set<string>();
const requests = new Map<string, number>();
const served = new Map<string, Served[]>();
const clickedPosts = new Map<string, Set<string>>();
const body = experimentBody({ minimum_sample_size: 5, gates: { min_user_satisfaction: 0.5 } });

async function seedPosts(): Promise<void> {
  const statuses = [
    ...Array.from({ length: 12 }, (_, i) => makeStatus({ n: i + 1, author: 'author1', ageHours: 30 + i, favourites: i, tags: ['cats'] })),
    ...Array.from({ length: 24 }, (_, i) =>
      makeStatus({ n: i + 13, author: `author${2 + (i % 4)}`, ageHours: 1 + i * 0.25, favourites: (i * 7) % 11, tags: ['news'] }),
    ),
  ];
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: admin, payload: { statuses } });
  expect(res.statusCode).toBe(201);
}

async function recommend(user: string): Promise<Served[]> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/v1/recommendations?user_id=${user}&limit=8`,
    headers: await t.userHeaders(user),
  });
  expect(res.statusCode).toBe(200);
  return res.json();
}

async function interact(user: string, postId: string, action: string): Promise<void> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/interactions',
    headers: await t.userHeaders(user),
    payload: { user_id: user, post_id: postId, action_type: action },
  });
  expect(res.statusCode).toBe(201);
}

async function feedback(user: string, postId: string, value: 'more' | 'less'): Promise<void> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/recommendations/feedback',
    headers: await t.userHeaders(user),
    payload: { user_id: user, post_id: postId, feedback: value },
  });
  expect(res.statusCode).toBe(201);
}

async function nextMillisecond(): Promise<void> {
  const start = Date.now();
  while (Date.now() <= start) await new Promise((resolve) => setTimeout(resolve, 1));
}

/** One simulated user: what they are served, click, interact with and say, tallied into `expected`. */
async function simulate(user: string, i: number): Promise<void> {
  const counts = emptyCounts();
  const oldPost = makeStatus({ n: 1 }).id as string;
  if (i % 2 === 0) {
    await interact(user, oldPost, 'favorite'); // history before assignment: warm, and not counted
    // Activity in the assignment's own millisecond counts as "at or after" it: let the clock move on.
    await nextMillisecond();
  } else cold.add(user);
  const lists = [await recommend(user)];
  if (i % 5 === 0) lists.push(await recommend(user));
  requests.set(user, lists.length);
  served.set(user, lists.flat());
  counts.impressions = lists.reduce((n, list) => n + list.length, 0);
  const list = lists[0] as Served[];
  const session = `s-${user}-1`;
  const clicks = list.slice(0, i % 4);
  const durationMs = (30 + i) * 1000 + 250;
  const events: object[] = [
    { type: 'session_start', user_id: user, session_id: session, timestamp: new Date(T0).toISOString() },
    ...list.slice(0, 2).map((p) => ({ type: 'view', user_id: user, post_id: p.id, session_id: session })),
    ...clicks.map((p) => ({ type: 'click', user_id: user, post_id: p.id, session_id: session })),
    { type: 'session_end', user_id: user, session_id: session, timestamp: new Date(T0 + durationMs).toISOString() },
  ];
  counts.sessions = 1;
  counts.session_seconds = durationMs / 1000;
  counts.bounces = clicks.length === 0 ? 1 : 0;
  counts.clicks = clicks.length;
  clickedPosts.set(user, new Set(clicks.map((p) => p.id)));
  if (i % 3 === 0) {
    // A session that never ends (not counted) and a click outside any session (counted).
    events.push({ type: 'session_start', user_id: user, session_id: `s-${user}-2` });
    events.push({ type: 'click', user_id: user, post_id: (list[7] ?? list[0])!.id });
    counts.clicks += 1;
    clickedPosts.get(user)?.add((list[7] ?? list[0])!.id);
  }
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/analytics/events',
    headers: i % 2 ? admin : await t.userHeaders(user),
    payload: { events },
  });
  expect(res.statusCode).toBe(201);
  if (i % 3 === 1) {
    await interact(user, (list[0] as Served).id, 'favorite');
    counts.interactions += 1;
  }
  if (i % 6 === 1) {
    await interact(user, (list[1] as Served).id, 'bookmark');
    counts.interactions += 1;
  }
  if (i % 4 === 1) {
    await feedback(user, (list[2] as Served).id, 'more');
    counts.feedback_positive += 1;
  }
  if (i % 4 === 2) {
    await feedback(user, (list[3] as Served).id, 'less');
    counts.feedback_negative += 1;
  }
  if (i % 8 === 1) {
    await feedback(user, (list[4] as Served).id, 'more');
    counts.feedback_positive += 1;
  }
  expected.set(user, counts);
}

const variantOf = (user: string) => assignVariant(user, id, body.variants).variant?.name as string;
const get = async (path: string) => {
  const res = await t.app.inject({ method: 'GET', url: `${BASE}/${id}${path}`, headers: admin });
  expect(res.statusCode, path).toBe(200);
  return res.json().data;
};

/** Accumulators built here from the sent data, users in id order like the export. */
function expectedAccumulators() {
  const accumulators = createAccumulators(body.variants.map((v) => v.name));
  for (const user of [...USERS].sort()) accumulators.get(variantOf(user))?.add(expected.get(user) as UserCounts);
  return accumulators;
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.adminHeaders();
  await seedPosts();
  const created = await t.app.inject({ method: 'POST', url: BASE, headers: admin, payload: body });
  id = created.json().data.id;
  expect((await t.app.inject({ method: 'POST', url: `${BASE}/${id}/start`, headers: admin })).statusCode).toBe(200);
  for (const [i, user] of USERS.entries()) await simulate(user, i);
  // Events after the experiment is paused do not count; one in the pause's own millisecond
  // would not either (periods are [start, end)), so let the clock move past the last user's.
  await nextMillisecond();
  await t.app.inject({ method: 'POST', url: `${BASE}/${id}/pause`, headers: admin });
  await t.app.inject({
    method: 'POST',
    url: '/api/v1/analytics/events',
    headers: admin,
    payload: { events: [{ type: 'click', user_id: 'u01', post_id: 'x' }] },
  });
});
afterAll(async () => t.close());

describe('an experiment end to end', () => {
  it('reports every simulated user as assigned to the variant the spec rule gives', async () => {
    const status = await get('/status');
    expect(status.users_assigned).toBe(USERS.length);
    for (const variant of status.variants) {
      const users = USERS.filter((u) => variantOf(u) === variant.name).length;
      expect(variant).toMatchObject({ users_assigned: users, share: users / USERS.length, blocked: false });
    }
    expect(status.srm).toEqual(analyzeExperiment(body as never, expectedAccumulators()).srm);
  });

  it('analyses exactly the numbers that were sent', async () => {
    const analysis = await get('/analysis');
    const reference = analyzeExperiment(
      { ...body, confidence_level: 0.95, minimum_sample_size: 5, analysis_method: 'sequential' },
      expectedAccumulators(),
    );
    expect(analysis).toEqual(reference);
    expect(analysis.sample_sizes).toEqual(
      Object.fromEntries(body.variants.map((v) => [v.name, USERS.filter((u) => variantOf(u) === v.name).length])),
    );
    const bySession = await get('/analysis?metric=session_duration');
    expect(bySession.primary_metric).toBe('session_duration');
    expect(Object.keys(bySession.statistical_significance)).toEqual(['treatment_vs_control']);
    const bad = await t.app.inject({ method: 'GET', url: `${BASE}/${id}/analysis?metric=revenue`, headers: admin });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().field).toBe('metric');
  });

  it('reports the three metric groups per variant from the sent data', async () => {
    const metrics = await get('/metrics');
    const reference = analyzeExperiment(body as never, expectedAccumulators());
    for (const variant of metrics.variants) {
      const members = USERS.filter((u) => variantOf(u) === variant.name);
      const totals = emptyCounts();
      for (const u of members) for (const key of COUNT_KEYS) totals[key] += (expected.get(u) as UserCounts)[key];
      expect(variant.users).toBe(members.length);
      expect(variant.totals).toEqual(totals);
      for (const key of COUNT_KEYS) expect(totals[key], key).toBeGreaterThan(0);
      expect(variant.engagement).toEqual(reference.metrics[variant.name]);
      expect(variant.engagement.click_through_rate).toBe(totals.clicks / totals.impressions);

      const items = members.flatMap((u) => served.get(u) as Served[]);
      expect(variant.algorithm.avg_recommendation_score).toBeCloseTo(items.reduce((s, p) => s + p.ranking_score, 0) / items.length, 5);
      expect(variant.algorithm.score_distribution.reduce((n: number, b: { count: number }) => n + b.count, 0)).toBe(items.length);
      const distinct = members.reduce((n, u) => n + new Set((served.get(u) as Served[]).map((p) => p.id)).size, 0);
      expect(variant.algorithm.recommendation_diversity).toBe(distinct / items.length);
      const coldMembers = members.filter((u) => cold.has(u));
      const coldClicks = coldMembers.reduce((n, u) => n + (expected.get(u) as UserCounts).clicks, 0);
      const coldImpressions = coldMembers.reduce((n, u) => n + (expected.get(u) as UserCounts).impressions, 0);
      expect(variant.algorithm.cold_start_performance).toBe(coldClicks / coldImpressions);
      const semantic = members.flatMap((u) =>
        (served.get(u) as Served[])
          .filter((p) => p.recommendation_metadata.reason_code === 'SEMANTIC_MATCH')
          .map((p) => clickedPosts.get(u)?.has(p.id)),
      );
      expect(variant.algorithm.semantic_match_quality).toBe(semantic.length ? semantic.filter(Boolean).length / semantic.length : null);

      const sentRequests = members.reduce((n, u) => n + (requests.get(u) as number), 0);
      expect(variant.performance).toMatchObject({ requests: sentRequests, errors: 0, error_rate: 0 });
      expect(variant.performance.response_time_p95).toBeGreaterThan(0);
      expect(variant.performance.cache_hit_rate).toBeGreaterThanOrEqual(0);
      expect(variant.performance.recommendations_per_second).toBeCloseTo(sentRequests / metrics.active_seconds, 9);
    }
  });

  it("evaluates the gates on the same figures, with the experiment's thresholds", async () => {
    const gates = await get('/gates');
    const exported = await parseJsonlExport(exportLines(await exportText()), 'export.jsonl');
    const inputs = gateInputsFromData(
      body.variants.map((v) => v.name),
      expectedAccumulators(),
      exported.performance,
      // The experiment's own design: its (default, sequential) method, 95% and minimum 5.
      gateInputOptionsFor({ analysis_method: 'sequential', confidence_level: 0.95, minimum_sample_size: 5 }),
    );
    const reference = evaluateGates({ variants: inputs, minimumSampleSize: 5, thresholds: body.gates, srm: gates.srm });
    expect(gates.rule).toBe('bounds');
    expect(gates.verdict).toBe(reference.verdict);
    expect(gates.thresholds.min_user_satisfaction).toBe(0.5);
    for (const variant of gates.variants) {
      const mine = reference.results.filter((r) => r.variant === variant.name).map(({ variant: _v, ...rest }) => rest);
      expect(variant.gates).toEqual(mine);
    }
    const ctr = gates.variants[0].gates.find((g: { gate: string }) => g.gate === 'min_click_through_rate');
    expect(ctr).toMatchObject({ threshold: 0.05, comparator: '>=' });
  });

  it('exports JSON Lines that parse back to the very same analysis', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${BASE}/${id}/export`, headers: admin });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = res.body
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ type: 'experiment', id, status: 'PAUSED' });
    const userLines = lines.filter((l) => l.type === 'user');
    expect(userLines.map((l) => l.user_id)).toEqual([...USERS].sort());
    for (const line of userLines) {
      expect(line).toEqual({
        type: 'user',
        user_id: line.user_id,
        variant: variantOf(line.user_id),
        ...expected.get(line.user_id),
        pre_engagement: 0,
        instance: 'local',
        assigned_at: expect.any(String),
        days: expect.any(Object),
      });
    }
    expect(lines.filter((l) => l.type === 'performance').map((l) => l.variant)).toEqual(['control', 'treatment']);
    const parsed = await parseJsonlExport(exportLines(res.body), 'export.jsonl');
    expect(analyzeExperiment(parsed.experiment, parsed.accumulators)).toEqual(await get('/analysis'));
  });
});

async function exportText(): Promise<string> {
  return (await t.app.inject({ method: 'GET', url: `${BASE}/${id}/export`, headers: admin })).body;
}

async function* exportLines(text: string): AsyncGenerator<string> {
  for (const line of text.split('\n')) yield line;
}
