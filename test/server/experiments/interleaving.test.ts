/**
 * Interleaving experiments through the server: creation rules, the choice that names both
 * rankers, the stored team of each interleaved impression, and `/analysis` crediting real
 * accepted clicks (posted through the events API) to the team that contributed the post.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTestPValue, wilsonInterval } from '../../../src/experiments/interleaving/analysis.js';
import {
  interleavingTuning,
  sequentialSharePValue,
  shareConfidenceSequence,
} from '../../../src/experiments/interleaving/sequential-share.js';
import type { Team } from '../../../src/experiments/interleaving/team-draft.js';
import { InterleavingServing, isInterleavedChoice } from '../../../server/experiments/interleaving/interleaving-serving.js';
import { withInterleavingTables } from '../../../server/experiments/interleaving/interleaving.tables.js';
import { makeStatus } from '../../helpers/mastodon-fixtures.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { AUTHOR_ONLY, RECENCY_ONLY, experimentBody, threeVariantBody } from './experiment-bodies.js';

const BASE = '/api/v1/analytics/experiments';
const USERS = Array.from({ length: 12 }, (_, i) => `il${String(i).padStart(2, '0')}`);
/** Per user: how many of team A's and team B's served posts they click. */
const CLICKS: Record<string, { A: number; B: number }> = {
  il00: { A: 2, B: 0 },
  il01: { A: 2, B: 0 },
  il02: { A: 1, B: 0 },
  il03: { A: 3, B: 1 },
  il04: { A: 2, B: 1 },
  il05: { A: 0, B: 1 },
  il06: { A: 1, B: 2 },
  il07: { A: 1, B: 1 },
};

let t: TestApp;
let admin: Record<string, string>;
let id: number;
let serving: InterleavingServing;

async function nextMillisecond(): Promise<void> {
  const start = Date.now();
  while (Date.now() <= start) await new Promise((resolve) => setTimeout(resolve, 1));
}

/** The teams stored for the user's served posts: post id -> team letter (A: treatment, B: control). */
async function storedTeams(user: string): Promise<Map<string, Team>> {
  const rows = await withInterleavingTables(t.database.db)
    .selectFrom('interleaving_impressions')
    .select(['post_id', 'team'])
    .where('experiment_id', '=', id)
    .where('user_id', '=', user)
    .execute();
  return new Map(rows.map((row): [string, Team] => [row.post_id, row.team === 'treatment' ? 'A' : 'B']));
}

/**
 * Serves the user through the real route (the recorder stores the impressions). Where the
 * recommendation service already interleaves (wired), the feature stored each post's team;
 * otherwise the teams are stored here as an interleaved list would have them (alternating).
 */
async function serveInterleaved(user: string): Promise<{ postId: string; team: Team }[]> {
  const runtime = t.app.experiments.runtime;
  const choice = await serving.decorate(user, await runtime.choose(user));
  expect(isInterleavedChoice(choice)).toBe(true);
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/v1/recommendations?user_id=${user}&limit=8`,
    headers: await t.userHeaders(user),
  });
  expect(res.statusCode).toBe(200);
  const posts: { id: string }[] = res.json();
  expect(posts).toHaveLength(8);
  if ((await storedTeams(user)).size === 0) {
    await serving.record({
      userId: user,
      choice,
      items: posts.map((post, k) => ({ postId: post.id, team: k % 2 === 0 ? 'A' : 'B', score: 0.5, reasonCode: 'RECENT' })),
      latencyMs: 1,
      cacheHit: false,
    });
  }
  const teams = await storedTeams(user);
  return posts.map((post) => ({ postId: post.id, team: teams.get(post.id) as Team }));
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.adminHeaders();
  const statuses = Array.from({ length: 20 }, (_, i) =>
    makeStatus({ n: i + 1, author: `author${1 + (i % 4)}`, ageHours: 1 + i, favourites: i % 5 }),
  );
  expect((await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: admin, payload: { statuses } })).statusCode).toBe(201);
  const created = await t.app.inject({
    method: 'POST',
    url: BASE,
    headers: admin,
    payload: experimentBody({ type: 'interleaving', minimum_sample_size: 3 }),
  });
  expect(created.statusCode).toBe(201);
  id = created.json().data.id;
  expect((await t.app.inject({ method: 'POST', url: `${BASE}/${id}/start`, headers: admin })).statusCode).toBe(200);
  serving = new InterleavingServing(t.database.db, t.app.experiments.runtime);
  const events: object[] = [];
  for (const user of USERS) {
    const items = await serveInterleaved(user);
    const clicks = CLICKS[user] ?? { A: 0, B: 0 };
    for (const team of ['A', 'B'] as const) {
      for (const item of items.filter((i) => i.team === team).slice(0, clicks[team]))
        events.push({ type: 'click', user_id: user, post_id: item.postId });
    }
  }
  await nextMillisecond();
  const posted = await t.app.inject({ method: 'POST', url: '/api/v1/analytics/events', headers: admin, payload: { events } });
  expect(posted.statusCode).toBe(201);
  expect(posted.json().data?.accepted ?? posted.json().accepted).toBe(events.length);
});
afterAll(async () => t.close());

describe('creating an interleaving experiment', () => {
  it('records the type (ab by default)', async () => {
    expect((await t.app.experiments.experiments.get(id)).type).toBe('interleaving');
    const ab = await t.app.inject({ method: 'POST', url: BASE, headers: admin, payload: experimentBody({ name: 'plain' }) });
    expect(ab.statusCode).toBe(201);
    expect((await t.app.experiments.experiments.get(ab.json().data.id)).type).toBe('ab');
  });

  it('needs exactly two variants, and a known type, naming the field', async () => {
    const three = await t.app.inject({
      method: 'POST',
      url: BASE,
      headers: admin,
      payload: { ...threeVariantBody(), type: 'interleaving' },
    });
    expect(three.statusCode).toBe(400);
    expect(three.json()).toMatchObject({ field: 'variants' });
    expect(three.json().message).toContain('exactly two variants');
    const bogus = await t.app.inject({ method: 'POST', url: BASE, headers: admin, payload: { ...experimentBody(), type: 'bandit' } });
    expect(bogus.statusCode).toBe(400);
    expect(JSON.stringify(bogus.json())).toContain('type');
  });
});

describe('serving an interleaving experiment', () => {
  it('names both rankers (team A: the variant under test, B: the control) and a per-user, per-day seed', async () => {
    const runtime = t.app.experiments.runtime;
    const choice = await serving.decorate('il00', await runtime.choose('il00'));
    if (!isInterleavedChoice(choice)) throw new Error('not interleaved');
    expect(choice.interleave.teams).toEqual({ A: 'treatment', B: 'control' });
    expect(choice.interleave.configs.map((c) => c.weights)).toEqual([RECENCY_ONLY, AUTHOR_ONLY]);
    expect(choice.algorithm).toBe(`exp${id}:interleaved`);
    const again = await serving.decorate('il00', await runtime.choose('il00'));
    expect(isInterleavedChoice(again) && again.interleave.seed).toBe(choice.interleave.seed);
    const other = await serving.decorate('il01', await runtime.choose('il01'));
    expect(isInterleavedChoice(other) && other.interleave.seed).not.toBe(choice.interleave.seed);
  });

  it('leaves a choice outside interleaving experiments as it is', async () => {
    const plain = { config: { weights: AUTHOR_ONLY }, algorithm: 'default' };
    expect(await serving.decorate('nobody', plain)).toBe(plain);
  });
});

describe('the analysis of an interleaving experiment', () => {
  it('credits each accepted click to the team that contributed the post, per user: wins, ties, share, interval, sign test', async () => {
    // The planned final read: fixed horizon (the experiment's recorded method is sequential, the default).
    const res = await t.app.inject({ method: 'GET', url: `${BASE}/${id}/analysis?method=fixed`, headers: admin });
    expect(res.statusCode).toBe(200);
    const analysis = res.json().data;
    expect(analysis).toMatchObject({ analysis_method: 'fixed', method: 'team_draft_sign_test', sequential_tuning: null });
    // Wins of the variant under test (A): il00-il04; of the control: il05, il06; tie: il07; no clicks: il08-il11.
    expect(analysis).toMatchObject({
      type: 'interleaving',
      experiment_id: id,
      variant: 'treatment',
      control: 'control',
      users: 12,
      users_with_preference: 7,
      ties: 1,
      users_without_clicks: 4,
      preference_share: 5 / 7,
      minimum_sample_size: 3,
      underpowered: false,
    });
    expect(analysis.teams).toEqual([
      { name: 'treatment', is_control: false, wins: 5, credited_clicks: 12, impressions: 48 },
      { name: 'control', is_control: true, wins: 2, credited_clicks: 6, impressions: 48 },
    ]);
    expect(analysis.p_value).toBeCloseTo(signTestPValue(5, 7) as number, 15);
    const [low, high] = wilsonInterval(5, 7, 0.95) as [number, number];
    expect(analysis.ci_low).toBeCloseTo(low, 15);
    expect(analysis.ci_high).toBeCloseTo(high, 15);
    expect(analysis).toMatchObject({ significant: false, winner: null });
  });

  it('is read by the recorded method, sequential by default: always-valid p-value and confidence sequence', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${BASE}/${id}/analysis`, headers: admin });
    expect(res.statusCode).toBe(200);
    const analysis = res.json().data;
    const tuning = interleavingTuning(1 - 0.95, 3);
    expect(analysis).toMatchObject({ analysis_method: 'sequential', method: 'team_draft_sequential', sequential_tuning: tuning });
    expect(analysis).toMatchObject({ users_with_preference: 7, preference_share: 5 / 7, ties: 1 });
    expect(analysis.p_value).toBe(sequentialSharePValue(5, 7, tuning.rho_squared));
    expect([analysis.ci_low, analysis.ci_high]).toEqual(shareConfidenceSequence(5, 7, tuning.rho_squared, 0.95));
    expect(analysis.p_value).toBeGreaterThan(signTestPValue(5, 7) as number);
  });
});
