/**
 * The collaborative signal through the real app (SQLite here; PostgreSQL through
 * vitest.postgres.config.ts): interactions feed the co-engagement state at write time, a
 * variant weighing `collaborative` ranks a co-engaged post from outside the candidate pool
 * first with its own reason, four-weight rankings never show it, and erasing the users who
 * co-engaged takes their contribution away before the erasure answers.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CacheLimits } from '../../../server/config.js';
import { DEFAULT_CANDIDATE_INDEX_OPTIONS } from '../../../src/ranking/index.js';
import { makeStatus } from '../../helpers/mastodon-fixtures.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { experimentBody } from '../experiments/experiment-bodies.js';

let t: TestApp;
/** Post ids by label, as the service names them. */
const ids = new Map<string, string>();

const COLLABORATIVE = { author_preference: 0.1, content_engagement: 0.1, recency: 0.1, semantic_similarity: 0.1, collaborative: 0.6 };
const CO_ENGAGERS = ['v1', 'v2', 'v3', 'v4', 'v5'];

/**
 * A pool of the 30 newest posts only (the state's options pass through the app's cache
 * limits), so that `old`, a month old and unengaged, is outside it.
 */
const SMALL_POOL = { index: { ...DEFAULT_CANDIDATE_INDEX_OPTIONS, maxRecent: 30, maxPopular: 0 } } as unknown as Partial<CacheLimits>;

async function seedPosts(): Promise<void> {
  // The old post first, alone: the pool, trimmed once it holds 10% over its bound, drops it then.
  await store([makeStatus({ n: 101, author: 'bob', tags: ['rust'], text: 'lifetimes explained at last', ageHours: 24 * 30 })]);
  await store([
    makeStatus({ n: 100, author: 'ana', tags: ['rust'], text: 'borrow checker tips', ageHours: 2 }),
    ...Array.from({ length: 34 }, (_, i) =>
      makeStatus({ n: i + 1, author: `author${i % 6}`, tags: ['news'], text: `news item ${i}`, ageHours: 1 + i, favourites: i % 7 }),
    ),
  ]);
}

async function store(statuses: ReturnType<typeof makeStatus>[]): Promise<void> {
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await t.adminHeaders(), payload: { statuses } });
  expect(res.statusCode).toBe(201);
  for (const status of res.json<{ id: string; content: string }[]>()) {
    if (status.content.includes('borrow checker')) ids.set('seed', status.id);
    else if (status.content.includes('lifetimes')) ids.set('old', status.id);
    else ids.set(`news${ids.size}`, status.id);
  }
}

async function favourite(userId: string, label: string): Promise<void> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/interactions',
    headers: await t.userHeaders(userId),
    payload: { user_id: userId, post_id: ids.get(label), action_type: 'favorite' },
  });
  expect(res.statusCode, res.body).toBe(201);
}

type Item = { id: string; recommendation_metadata: { reason_code: string; reason_string: string } };

async function recommend(userId: string, query = '', headers: Record<string, string> = {}): Promise<Item[]> {
  const res = await t.app.inject({
    url: `/api/v1/recommendations?user_id=${userId}${query}`,
    headers: { ...(await t.userHeaders(userId)), ...headers },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Item[]>();
}

async function startCollaborativeExperiment(): Promise<void> {
  const body = experimentBody({
    variants: [
      { name: 'control', traffic_allocation: 50, is_control: true, algorithm_config: { weights: COLLABORATIVE } },
      { name: 'treatment', traffic_allocation: 50, is_control: false, algorithm_config: { weights: { ...COLLABORATIVE } } },
    ],
  });
  const admin = await t.adminHeaders();
  const created = await t.app.inject({ method: 'POST', url: '/api/v1/analytics/experiments', headers: admin, payload: body });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json().data.id as number;
  expect(created.json().data.variants[0].algorithm_config.weights.collaborative).toBe(0.6);
  expect((await t.app.inject({ method: 'POST', url: `/api/v1/analytics/experiments/${id}/start`, headers: admin })).statusCode).toBe(200);
}

beforeEach(async () => {
  ids.clear();
  t = await createTestApp({ caches: SMALL_POOL });
  await seedPosts();
  // Five people liked ana's post and then the old one; u likes ana's post; w likes some news.
  for (const v of CO_ENGAGERS) {
    await favourite(v, 'seed');
    await favourite(v, 'old');
  }
  await favourite('u', 'seed');
  await favourite('w', 'news5');
});
afterEach(async () => {
  await t.close();
});

describe('the collaborative signal over HTTP', () => {
  it('four-weight rankings (the default) neither show the old post nor the collaborative reason', async () => {
    const items = await recommend('u', '&limit=40');
    expect(items.length).toBeGreaterThan(0);
    expect(items.map((i) => i.id)).not.toContain(ids.get('old'));
    expect(items.some((i) => i.recommendation_metadata.reason_code === 'COLLABORATIVE')).toBe(false);
  });

  it("a variant weighing collaborative ranks the co-engaged post from outside the pool first, liked by people who liked @ana's post", async () => {
    await startCollaborativeExperiment();
    const [first] = await recommend('u');
    expect(first?.id).toBe(ids.get('old'));
    expect(first?.recommendation_metadata).toMatchObject({
      reason_code: 'COLLABORATIVE',
      reason_string: "Liked by people who liked @ana's post about #rust",
    });
    const [german] = await recommend('u', '&limit=5', { 'accept-language': 'de' });
    expect(german?.recommendation_metadata.reason_string).toBe('Gefällt Leuten, denen der Beitrag von @ana über #rust gefallen hat');
    // Someone whose likes nobody co-engaged with the old post is not shown it.
    expect((await recommend('w', '&limit=40')).map((i) => i.id)).not.toContain(ids.get('old'));
  });

  it('learns at write time: a later like adds the next co-engaged post to the same cached profile', async () => {
    await startCollaborativeExperiment();
    expect((await recommend('w'))[0]?.id).not.toBe(ids.get('old'));
    await favourite('w', 'seed');
    const [first] = await recommend('w');
    expect(first?.id).toBe(ids.get('old'));
  });

  it('an undo takes its pairs back', async () => {
    await startCollaborativeExperiment();
    for (const v of CO_ENGAGERS) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/interactions/undo',
        headers: await t.userHeaders(v),
        payload: { user_id: v, post_id: ids.get('old'), action_type: 'favorite' },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    expect((await recommend('u', '&limit=40')).some((i) => i.recommendation_metadata.reason_code === 'COLLABORATIVE')).toBe(false);
  });

  it('erasing the people who co-engaged removes their contribution before the erasure answers', async () => {
    await startCollaborativeExperiment();
    expect((await recommend('u'))[0]?.id).toBe(ids.get('old'));
    for (const v of CO_ENGAGERS) {
      const res = await t.app.inject({ method: 'DELETE', url: '/api/v1/privacy/data', headers: await t.userHeaders(v) });
      expect(res.statusCode, res.body).toBe(200);
    }
    const after = await recommend('u', '&limit=40');
    expect(after.map((i) => i.id)).not.toContain(ids.get('old'));
    expect(after.some((i) => i.recommendation_metadata.reason_code === 'COLLABORATIVE')).toBe(false);
  });
});
