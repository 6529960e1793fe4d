/**
 * Interleaving served for real: a user of an ACTIVE interleaving experiment gets one list
 * merged from both variants' rankings through the recommendations route, each served post's
 * team is stored, clients never see it, and /analysis credits the user's clicks to it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeStatus } from '../../helpers/mastodon-fixtures.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { experimentBody } from './experiment-bodies.js';

const BASE = '/api/v1/analytics/experiments';
let t: TestApp;
let admin: Record<string, string>;
let id: number;

async function recommend(user: string): Promise<{ id: string }[]> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/v1/recommendations?user_id=${user}&limit=8`,
    headers: await t.userHeaders(user),
  });
  expect(res.statusCode).toBe(200);
  return res.json();
}

async function teamsOf(user: string): Promise<Map<string, string>> {
  const rows = await t.database.db
    .withTables<{ interleaving_impressions: { user_id: string; post_id: string; team: string; experiment_id: number } }>()
    .selectFrom('interleaving_impressions')
    .select(['post_id', 'team'])
    .where('experiment_id', '=', id)
    .where('user_id', '=', user)
    .execute();
  return new Map(rows.map((row) => [row.post_id, row.team]));
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.adminHeaders();
  // Old posts by one author the user favours vs fresh posts by others: the two rankers disagree.
  const statuses = [
    ...Array.from({ length: 10 }, (_, i) => makeStatus({ n: i + 1, author: 'author1', ageHours: 40 + i })),
    ...Array.from({ length: 10 }, (_, i) => makeStatus({ n: i + 11, author: `author${2 + (i % 3)}`, ageHours: 1 + i * 0.5 })),
  ];
  expect((await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: admin, payload: { statuses } })).statusCode).toBe(201);
  for (const n of [1, 2]) {
    const post = makeStatus({ n }).id as string;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/interactions',
      headers: await t.userHeaders('reader'),
      payload: { user_id: 'reader', post_id: post, action_type: 'favorite' },
    });
    expect(res.statusCode).toBe(201);
  }
  const created = await t.app.inject({
    method: 'POST',
    url: BASE,
    headers: admin,
    payload: experimentBody({ type: 'interleaving', minimum_sample_size: 1 }),
  });
  id = created.json().data.id;
  expect((await t.app.inject({ method: 'POST', url: `${BASE}/${id}/start`, headers: admin })).statusCode).toBe(200);
});
afterAll(async () => t.close());

describe('serving an interleaving experiment', () => {
  it('serves one merged list, both rankers contributing, teams stored and never shown to the client', async () => {
    const served = await recommend('reader');
    expect(served).toHaveLength(8);
    expect(new Set(served.map((p) => p.id)).size).toBe(8);
    expect(JSON.stringify(served)).not.toMatch(/"team"|treatment|control/);
    const teams = await teamsOf('reader');
    expect([...teams.keys()].sort()).toEqual(served.map((p) => p.id).sort());
    const counts = { treatment: 0, control: 0 } as Record<string, number>;
    for (const team of teams.values()) counts[team] = (counts[team] ?? 0) + 1;
    expect(counts).toEqual({ treatment: 4, control: 4 });
  });

  it('reads the experiment as interleaving, and credits clicks to the ranker whose post was clicked', async () => {
    const experiment = await t.app.inject({ method: 'GET', url: `${BASE}/${id}`, headers: admin });
    expect(experiment.json().data.type).toBe('interleaving');
    const teams = await teamsOf('reader');
    const treatmentPosts = [...teams].filter(([, team]) => team === 'treatment').map(([post]) => post);
    const events = treatmentPosts.slice(0, 2).map((post) => ({ type: 'click', user_id: 'reader', post_id: post }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const posted = await t.app.inject({ method: 'POST', url: '/api/v1/analytics/events', headers: admin, payload: { events } });
    expect(posted.statusCode).toBe(201);
    const analysis = (await t.app.inject({ method: 'GET', url: `${BASE}/${id}/analysis`, headers: admin })).json().data;
    expect(analysis).toMatchObject({ type: 'interleaving', users: 1, users_with_preference: 1, preference_share: 1 });
    expect(analysis.teams[0]).toMatchObject({ name: 'treatment', wins: 1, credited_clicks: 2, impressions: 4 });
  });
});
