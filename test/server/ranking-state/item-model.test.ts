/**
 * The periodic item–item model through the real app (SQLite here; PostgreSQL through
 * vitest.postgres.config.ts): the `item_model` agent builds EASE from the stored interactions
 * and stores it in `item_models`, every instance serves it beside the co-engagement state, a
 * user's list then carries a model neighbour with the collaborative reason, and an erasure
 * drops the model (memory and table) before it answers; the next build leaves the erased user out.
 * The co-engagement state's pairing window is 0 here, so any collaborative reason is the model's.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CacheLimits } from '../../../server/config.js';
import { itemModelAgent, itemModelLoadAgent, readItemModelSettings } from '../../../server/ranking-state/item-model.agent.js';
import { runItemModelBuild } from '../../../server/ranking-state/item-model.job.js';
import { loadItemModel, loadItemModelPairs, storedItemModel } from '../../../server/ranking-state/item-model.repository.js';
import { loadRankingState } from '../../../server/ranking-state/ranking-state.service.js';
import { candidatePosts } from '../../../server/posts/post.service.js';
import { DEFAULT_CO_ENGAGEMENT_OPTIONS } from '../../../src/ranking/index.js';
import { ITEM_MODEL_HISTORY, itemModelFromBytes, itemModelToJson } from '../../../src/ranking/item-model.js';
import { makeStatus } from '../../helpers/mastodon-fixtures.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { experimentBody } from '../experiments/experiment-bodies.js';

let t: TestApp;
const ids = new Map<string, string>();
const COLLABORATIVE = { author_preference: 0.1, content_engagement: 0.1, recency: 0.1, semantic_similarity: 0.1, collaborative: 0.6 };
/** Six people who liked both `seed` and `target`. */
const CO_ENGAGERS = ['v1', 'v2', 'v3', 'v4', 'v5', 'v6'];
const NO_PAIRING = { coEngagement: { ...DEFAULT_CO_ENGAGEMENT_OPTIONS, window: 0 } } as unknown as Partial<CacheLimits>;
const ENV = { RECSVC_ITEM_MODEL_MIN_INTERACTIONS: '10', RECSVC_ITEM_MODEL_POSTS: '100' };

type Item = { id: string; recommendation_metadata: { reason_code: string; reason_string: string } };

async function favourite(userId: string, label: string): Promise<void> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/interactions',
    headers: await t.userHeaders(userId),
    payload: { user_id: userId, post_id: ids.get(label), action_type: 'favorite' },
  });
  expect(res.statusCode, res.body).toBe(201);
}

async function recommend(userId: string): Promise<Item[]> {
  const res = await t.app.inject({ url: `/api/v1/recommendations?user_id=${userId}&limit=40`, headers: await t.userHeaders(userId) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Item[]>();
}

const collaborativeIds = (items: Item[]): string[] =>
  items.filter((i) => i.recommendation_metadata.reason_code === 'COLLABORATIVE').map((i) => i.id);

describe('the periodic item–item model', () => {
  beforeEach(async () => {
    Object.assign(process.env, ENV);
    t = await createTestApp({ caches: NO_PAIRING });
    ids.clear();
    const statuses = [
      makeStatus({ n: 1, author: 'ana', tags: ['rust'], text: 'borrow checker tips', ageHours: 3 }),
      makeStatus({ n: 2, author: 'bob', tags: ['cooking'], text: 'sourdough at home', ageHours: 4 }),
      ...Array.from({ length: 20 }, (_, i) =>
        makeStatus({ n: 10 + i, author: `author${i % 5}`, tags: ['news'], text: `news item ${i}`, ageHours: 1 + i, favourites: i % 4 }),
      ),
    ];
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await t.adminHeaders(), payload: { statuses } });
    expect(res.statusCode).toBe(201);
    for (const status of res.json<{ id: string; content: string }[]>()) {
      if (status.content.includes('borrow checker')) ids.set('seed', status.id);
      else if (status.content.includes('sourdough')) ids.set('target', status.id);
      else ids.set(`news${ids.size}`, status.id);
    }
    for (const v of CO_ENGAGERS) {
      await favourite(v, 'seed');
      await favourite(v, 'target');
    }
    // Others like the news, so there is more than one pair to fit.
    for (const [i, w] of ['w1', 'w2', 'w3'].entries()) for (let n = 0; n < 4; n++) await favourite(w, `news${2 + ((i + n) % 6)}`);
    await favourite('u', 'seed');
    const admin = await t.adminHeaders();
    const body = experimentBody({
      variants: [
        { name: 'control', traffic_allocation: 50, is_control: true, algorithm_config: { weights: COLLABORATIVE } },
        { name: 'treatment', traffic_allocation: 50, is_control: false, algorithm_config: { weights: { ...COLLABORATIVE } } },
      ],
    });
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/analytics/experiments', headers: admin, payload: body });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id as number;
    expect((await t.app.inject({ method: 'POST', url: `/api/v1/analytics/experiments/${id}/start`, headers: admin })).statusCode).toBe(200);
  });

  afterEach(async () => {
    await t.close();
    for (const name of Object.keys(ENV)) delete process.env[name];
  });

  it('is built off the write path, stored, and serves a model neighbour with the collaborative reason', async () => {
    // Without pairing and before a build, nothing is collaborative.
    expect(collaborativeIds(await recommend('u'))).toEqual([]);
    expect(await t.app.agentRunner.runNow('item_model')).toMatchObject({ status: 'success' });
    const stored = await storedItemModel(t.database.db);
    expect(stored).toMatchObject({ interactions: CO_ENGAGERS.length * 2 + 12 + 1 });
    const items = await recommend('u');
    expect(collaborativeIds(items)).toEqual([ids.get('target')]);
    expect(items.find((i) => i.id === ids.get('target'))!.recommendation_metadata.reason_string).toMatch(/Liked by people who liked/);
    // Another instance over the same database serves the same stored model.
    const other = await loadRankingState((limits) => candidatePosts(t.database.db, limits));
    expect(other.itemModelId).toBeUndefined();
    await itemModelLoadAgent({ db: t.database.db, state: other }, { intervalSeconds: 60 }).run({
      signal: new AbortController().signal,
      now: Date.now,
    });
    expect(other.itemModelId).toBe(stored!.id);
    // A second run within the interval does not rebuild.
    expect(await t.app.agentRunner.runNow('item_model')).toMatchObject({
      report: { summary: expect.stringMatching(/^not due/) as string },
    });
  });

  it('is stored in its binary form; a model stored as JSON before migration 0052 still loads', async () => {
    expect(await t.app.agentRunner.runNow('item_model')).toMatchObject({ status: 'success' });
    const stored = (await storedItemModel(t.database.db))!;
    const row = await t.database.db
      .selectFrom('item_models')
      .select(['model', 'model_bytes'])
      .where('id', '=', stored.id)
      .executeTakeFirstOrThrow();
    expect(row.model).toBe('');
    expect(row.model_bytes?.length).toBe(stored.bytes);
    const model = (await loadItemModel(t.database.db, stored.id))!;
    expect(model.size).toBeGreaterThan(0);
    expect(model.data).toEqual(itemModelFromBytes(row.model_bytes!).data);
    // The row as a release before 0052 stored it: JSON, no bytes.
    await t.database.db
      .updateTable('item_models')
      .set({ model: itemModelToJson(model.data), model_bytes: null })
      .where('id', '=', stored.id)
      .execute();
    expect((await loadItemModel(t.database.db, stored.id))!.data).toEqual(model.data);
  });

  it('is built by a child that reads the database itself, as from the pairs the serving process reads', async () => {
    const script = new URL('../../../dist/server/ranking-state/item-model.child.js', import.meta.url);
    // The schema's URL on PostgreSQL; an in-memory SQLite database copied to a file.
    let target = t.database.sharedTarget;
    if (target === undefined) {
      target = join(mkdtempSync(join(tmpdir(), 'recsvc-model-')), 'model.db');
      await sql`VACUUM INTO ${target}`.execute(t.database.db);
    }
    const options = { minPairs: 0, maxItems: 100 };
    const read = await runItemModelBuild(
      { database: { target, limit: ITEM_MODEL_HISTORY }, options },
      new AbortController().signal,
      script,
    );
    const pairs = await loadItemModelPairs(t.database.db, ITEM_MODEL_HISTORY);
    const sent = await runItemModelBuild({ pairs, options }, new AbortController().signal, null);
    expect(read.where).toBe('child');
    expect(read.build).toEqual(sent.build);
    expect(read.build.read).toBe(pairs.length);
    expect(read.build.posts).toBeGreaterThan(0);
  });

  it('serves a post only one user engaged with through the cosine lists (EASE leaves it out)', async () => {
    // news20 has one user, who also liked the seed: cosine 1 / √(users of the seed · 1).
    await favourite('solo', 'seed');
    await favourite('solo', 'news20');
    expect(await t.app.agentRunner.runNow('item_model')).toMatchObject({ status: 'success' });
    const stored = (await loadItemModel(t.database.db, (await storedItemModel(t.database.db))!.id))!;
    expect(stored.data.ids).not.toContain(ids.get('news20'));
    expect(stored.data.cosine?.ids ?? []).toContain(ids.get('news20'));
    expect(collaborativeIds(await recommend('u'))).toContain(ids.get('news20'));
  });

  it('is rebuilt within its interval once the interactions grew by a fifth (an import)', async () => {
    expect(await t.app.agentRunner.runNow('item_model')).toMatchObject({ status: 'success' });
    const first = await storedItemModel(t.database.db);
    // 25 interactions stored: 4 more are not a fifth, 6 more are.
    for (const w of ['x1', 'x2', 'x3', 'x4']) await favourite(w, 'news3');
    expect(await t.app.agentRunner.runNow('item_model')).toMatchObject({
      report: { summary: expect.stringMatching(/^not due/) as string },
    });
    for (const w of ['x5', 'x6']) await favourite(w, 'news3');
    expect(await t.app.agentRunner.runNow('item_model')).toMatchObject({ status: 'success' });
    const second = await storedItemModel(t.database.db);
    expect(second!.id).not.toBe(first!.id);
    expect(second!.interactions).toBe(first!.interactions + 6);
  });

  it('is built again once when it was built while an import went on, though the data grew by less than a fifth', async () => {
    // This process's agent, with a follow-up after 3 new interactions (the service's: 500).
    const state = await loadRankingState((limits) => candidatePosts(t.database.db, limits));
    const agent = itemModelAgent({ db: t.database.db, state }, readItemModelSettings(), {
      workerScript: null,
      followUpMinNew: 3,
    });
    const run = () => agent.run({ signal: new AbortController().signal, now: Date.now });
    expect((await run())!.summary).toMatch(/^model /);
    const first = await storedItemModel(t.database.db);
    // The rest of the import: 3 more interactions, not a fifth of 25.
    for (const w of ['x1', 'x2', 'x3']) await favourite(w, 'news3');
    expect((await run())!.summary).toMatch(/^model /);
    const second = await storedItemModel(t.database.db);
    expect(second!.interactions).toBe(first!.interactions + 3);
    // A follow-up is not followed up: 3 more wait for the fifth.
    for (const w of ['x4', 'x5', 'x6']) await favourite(w, 'news3');
    expect((await run())!.summary).toMatch(/^not due/);
  });

  it('an erasure drops the model before it answers; the next build leaves the erased user out', async () => {
    await t.app.agentRunner.runNow('item_model');
    expect(collaborativeIds(await recommend('u'))).toEqual([ids.get('target')]);
    const before = (await storedItemModel(t.database.db))!;
    const res = await t.app.inject({ method: 'DELETE', url: '/api/v1/privacy/data', headers: await t.userHeaders('v1') });
    expect(res.statusCode, res.body).toBe(200);
    expect(await storedItemModel(t.database.db)).toBeUndefined();
    expect(collaborativeIds(await recommend('u'))).toEqual([]);
    await t.app.agentRunner.runNow('item_model');
    const after = (await storedItemModel(t.database.db))!;
    expect(after.id).not.toBe(before.id);
    expect(after.interactions).toBe(before.interactions - 2);
    expect(collaborativeIds(await recommend('u'))).toEqual([ids.get('target')]);
  });
});

describe('the item model build', () => {
  const pairs = Array.from({ length: 400 }, (_, i) => ({ userId: `u${i % 40}`, postId: `p${(i * 7) % 30}` }));

  it('runs in a child process (the built service) exactly as on this thread', async () => {
    const script = new URL('../../../dist/server/ranking-state/item-model.child.js', import.meta.url);
    const job = { pairs, options: { minPairs: 0, maxItems: 20 } };
    const inChild = await runItemModelBuild(job, new AbortController().signal, script);
    const here = await runItemModelBuild(job, new AbortController().signal, null);
    expect(inChild.where).toBe('child');
    expect(here.where).toBe('thread');
    expect(inChild.build).toEqual(here.build);
    expect(here.build.posts).toBe(20);
  });

  it('kills the child process when the run is aborted', async () => {
    const script = new URL('../../../dist/server/ranking-state/item-model.child.js', import.meta.url);
    const controller = new AbortController();
    const run = runItemModelBuild({ pairs, options: { minPairs: 0 } }, controller.signal, script);
    controller.abort();
    await expect(run).rejects.toThrow("the item model's child process exited (SIGKILL) without a result");
  });
});

describe('the item model settings', () => {
  it('reads RECSVC_ITEM_MODEL_*, and a bad value names its variable', () => {
    expect(readItemModelSettings({})).toEqual({ posts: 1000, intervalSeconds: 3600, minInteractions: 2000, cosinePosts: 10000 });
    expect(readItemModelSettings({ RECSVC_ITEM_MODEL_COSINE_POSTS: '0' })).toMatchObject({ cosinePosts: 0 });
    expect(() => readItemModelSettings({ RECSVC_ITEM_MODEL_COSINE_POSTS: '60000' })).toThrow(
      /^RECSVC_ITEM_MODEL_COSINE_POSTS: expected a whole number from 0 to 50000/,
    );
    expect(readItemModelSettings({ RECSVC_ITEM_MODEL_POSTS: '0', RECSVC_ITEM_MODEL_INTERVAL_SECONDS: '60' })).toMatchObject({
      posts: 0,
      intervalSeconds: 60,
    });
    expect(() => readItemModelSettings({ RECSVC_ITEM_MODEL_POSTS: '5000' })).toThrow(
      /^RECSVC_ITEM_MODEL_POSTS: expected a whole number from 0 to 3000/,
    );
    expect(() => readItemModelSettings({ RECSVC_ITEM_MODEL_INTERVAL_SECONDS: 'soon' })).toThrow(/^RECSVC_ITEM_MODEL_INTERVAL_SECONDS/);
  });
});
