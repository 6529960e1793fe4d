/**
 * POST /api/v1/interactions/batch: up to 500 interactions in one transaction, all or nothing,
 * each with the single write's idempotency, access rule and tracking level; erasure removes
 * what a batch stored exactly as it removes live interactions.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { purgeExpiredRows } from '../../../server/privacy/retention.agent.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';

const DAY = 86_400_000;
const URL = '/api/v1/interactions/batch';

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
  const statuses = [1, 2, 3, 4].map((n) => makeStatus({ n, author: `a${n}`, tags: ['cats'], ageHours: 30 * 24 }));
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await t.adminHeaders(), payload: { statuses } });
  expect(res.statusCode).toBe(201);
});
afterEach(async () => {
  await t.close();
});

interface Item {
  user_id: string;
  post_id: string;
  action_type: string;
  created_at?: string;
  context?: unknown;
}

const item = (user: string, n: number, extra: Partial<Item> = {}): Item => ({
  user_id: user,
  post_id: postId(n),
  action_type: 'favorite',
  ...extra,
});
const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();

async function batch(interactions: unknown[], headers?: Record<string, string>) {
  return t.app.inject({ method: 'POST', url: URL, headers: headers ?? (await t.adminHeaders()), payload: { interactions } });
}

async function rows(table: 'interactions' | 'user_affinities' | 'user_interests', userId?: string): Promise<number> {
  let query = t.database.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n'));
  if (userId !== undefined) query = query.where('user_id', '=', userId);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

async function favourites(n: number): Promise<number> {
  return (await t.app.inject({ url: `/api/v1/interactions/counts/${postId(n)}` })).json().data.favourites_count;
}

describe('POST /api/v1/interactions/batch', () => {
  it('stores every interaction with its time and answers per item, in order', async () => {
    const at = ago(3 * DAY);
    const res = await batch([item('u1', 1, { created_at: at }), item('u1', 2, { action_type: 'reblog' }), item('u2', 1)]);
    expect(res.statusCode).toBe(201);
    const data = res.json().data;
    expect(data).toMatchObject({ created: 3, existing: 0, not_stored: 0 });
    expect(data.results.map((r: { status: string }) => r.status)).toEqual(['created', 'created', 'created']);
    expect(data.results[0].interaction).toMatchObject({ user_id: 'u1', post_id: postId(1), created_at: at });
    expect(data.results[1].interaction).toMatchObject({ action_type: 'reblog' });
    expect(await favourites(1)).toBe(2);
    expect(await rows('interactions')).toBe(3);
    // The stored affinity of the 3-day-old favourite is dated by it.
    const affinity = await t.database.db
      .selectFrom('user_affinities')
      .select(['as_of_ms', 'score'])
      .where('user_id', '=', 'u1')
      .where('target', '=', 'acc-a1')
      .executeTakeFirstOrThrow();
    expect(Number(affinity.as_of_ms)).toBe(Date.parse(at));
  });

  it('is idempotent per user, post and action: within a batch, and against what was stored before', async () => {
    const first = await batch([item('u1', 1, { created_at: ago(DAY) })]);
    const firstId = first.json().data.results[0].interaction.id;
    const res = await batch([item('u1', 1), item('u1', 2), item('u1', 2)]);
    expect(res.statusCode).toBe(201);
    const data = res.json().data;
    expect(data).toMatchObject({ created: 1, existing: 2, not_stored: 0 });
    expect(data.results.map((r: { status: string }) => r.status)).toEqual(['existing', 'created', 'existing']);
    expect(data.results[0].interaction.id).toBe(firstId);
    expect(data.results[2].interaction.id).toBe(data.results[1].interaction.id);
    expect(await favourites(2)).toBe(1);
    // Sent again whole (a resumed import): nothing changes, 200.
    const again = await batch([item('u1', 1), item('u1', 2)]);
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toMatchObject({ created: 0, existing: 2 });
    expect(await rows('interactions')).toBe(2);
  });

  it('stores nothing when one interaction is refused, naming its index', async () => {
    const cases: Array<{ items: unknown[]; status: number; field: string }> = [
      // Refused by the schema.
      { items: [item('u1', 1), item('u1', 2, { action_type: 'like' })], status: 400, field: 'interactions[1].action_type' },
      { items: [item('u1', 1), { post_id: postId(2), action_type: 'favorite' }], status: 400, field: 'interactions[1].user_id' },
      // Refused by the time rules before anything is written.
      {
        items: [item('u1', 1), item('u1', 2), item('u1', 3), item('u1', 4, { created_at: new Date(Date.now() + 3_600_000).toISOString() })],
        status: 400,
        field: 'interactions[3].created_at',
      },
      // Refused after its earlier items were written (the post's own time, a missing post): rolled back.
      { items: [item('u1', 1), item('u1', 2, { created_at: ago(40 * DAY) })], status: 400, field: 'interactions[1].created_at' },
      { items: [item('u1', 1), item('u1', 2), { ...item('u1', 3), post_id: 'nope' }], status: 404, field: 'interactions[2].post_id' },
      { items: [item('u1', 1), item('u1', 2, { context: { a: 'x'.repeat(100_000) } })], status: 400, field: 'interactions[1].context' },
    ];
    for (const c of cases) {
      const res = await batch(c.items);
      expect(res.statusCode, c.field).toBe(c.status);
      expect(res.json().field, c.field).toMatch(new RegExp(`^${c.field.replace(/[[\]]/g, '\\$&')}`));
    }
    expect(await rows('interactions')).toBe(0);
    expect(await rows('user_affinities')).toBe(0);
    expect(await rows('user_interests')).toBe(0);
    for (const n of [1, 2, 3]) expect(await favourites(n)).toBe(0);
    // And the same batch without its bad item goes through.
    expect((await batch([item('u1', 1), item('u1', 2)])).statusCode).toBe(201);
  });

  it('takes 1 to 500 interactions', async () => {
    expect((await batch([])).json()).toMatchObject({ status_code: 400, field: 'interactions' });
    const many = Array.from({ length: 501 }, (_, i) => item(`u${i}`, 1));
    expect((await batch(many)).json()).toMatchObject({ status_code: 400, field: 'interactions' });
    const full = await batch(many.slice(0, 500));
    expect(full.statusCode).toBe(201);
    expect(full.json().data.created).toBe(500);
    expect(await favourites(1)).toBe(500);
  });

  it("needs a token; a user's token logs only its own user's interactions, an admin's anyone's", async () => {
    const anon = await t.app.inject({ method: 'POST', url: URL, payload: { interactions: [item('u1', 1)] } });
    expect(anon.statusCode).toBe(401);
    const other = await batch([item('u1', 1), item('u2', 2)], await t.userHeaders('u1'));
    expect(other.statusCode).toBe(403);
    expect(other.json().message).toMatch(/interactions\[1\]\.user_id/);
    expect(await rows('interactions')).toBe(0);
    expect((await batch([item('u1', 1), item('u1', 2)], await t.userHeaders('u1'))).statusCode).toBe(201);
  });

  it('honours each user\'s tracking level: nothing at all is stored for a user at "none"', async () => {
    const admin = await t.adminHeaders();
    const level = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/privacy?user_id=nu',
      headers: admin,
      payload: { tracking_level: 'none' },
    });
    expect(level.statusCode).toBe(200);
    await t.app.inject({ method: 'PATCH', url: '/api/v1/privacy?user_id=lu', headers: admin, payload: { tracking_level: 'limited' } });
    const res = await batch([item('nu', 1, { created_at: ago(DAY) }), item('lu', 1, { created_at: ago(DAY) }), item('nu', 2)]);
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ created: 1, existing: 0, not_stored: 2 });
    expect(res.json().data.results.map((r: { status: string }) => r.status)).toEqual(['not_stored', 'created', 'not_stored']);
    for (const table of ['interactions', 'user_affinities', 'user_interests'] as const) {
      expect(await rows(table, 'nu'), table).toBe(0);
      expect(await rows(table, 'lu'), table).toBeGreaterThan(0);
    }
    expect(await favourites(1)).toBe(1);
    expect(await favourites(2)).toBe(0);
    // A missing post is still a 404 for a user at none: the batch is refused whole.
    const missing = await batch([item('lu', 3), { ...item('nu', 1), post_id: 'nope' }]);
    expect(missing.json()).toMatchObject({ status_code: 404, field: 'interactions[1].post_id' });
    expect(await favourites(3)).toBe(0);
  });

  it('erasure removes what a batch stored exactly as live interactions', async () => {
    await batch([item('u1', 1, { created_at: ago(5 * DAY) }), item('u1', 2, { created_at: ago(2 * DAY) }), item('u2', 1)]);
    const live = await t.app.inject({
      method: 'POST',
      url: '/api/v1/interactions',
      headers: await t.userHeaders('u1'),
      payload: { user_id: 'u1', post_id: postId(3), action_type: 'favorite' },
    });
    expect(live.statusCode).toBe(201);
    const erased = await t.app.inject({ method: 'DELETE', url: '/api/v1/privacy/data?user_id=u1', headers: await t.adminHeaders() });
    expect(erased.statusCode).toBe(200);
    for (const table of ['interactions', 'user_affinities', 'user_interests'] as const) {
      expect(await rows(table, 'u1'), table).toBe(0);
      expect(await rows(table, 'u2'), table).toBeGreaterThan(0);
    }
    const prefs = await t.app.inject({ url: '/api/v1/recommendations/preferences?user_id=u1', headers: await t.adminHeaders() });
    expect(prefs.json().data.learned).toEqual({ authors: [], tags: [] });
  });

  it("is purged by retention by each interaction's own time, as live rows that age are; the affinities stay", async () => {
    const admin = await t.adminHeaders();
    await t.app.inject({ method: 'PATCH', url: '/api/v1/privacy?user_id=lu', headers: admin, payload: { tracking_level: 'limited' } });
    // Posts 1-4 are 30 days old: interactions 20 and 2 days old; `limited` keeps 90 days, so
    // a cutoff taken 80 days from now is 10 days back in the rows' history.
    const res = await batch([item('lu', 1, { created_at: ago(20 * DAY) }), item('lu', 2, { created_at: ago(2 * DAY) })]);
    expect(res.statusCode).toBe(201);
    const purged = await purgeExpiredRows(
      { db: t.database.db, policy: { defaultLevel: 'full', pseudonym: (userId: string) => userId }, intervalSeconds: 60 },
      Date.now() + 80 * DAY,
    );
    expect(purged.interactions).toBe(1);
    const left = await t.database.db.selectFrom('interactions').select('post_id').where('user_id', '=', 'lu').execute();
    expect(left.map((r) => r.post_id)).toEqual([postId(2)]);
    expect(await rows('user_affinities', 'lu')).toBeGreaterThan(0);
  });

  it('is declared in the OpenAPI document with its schemas', async () => {
    const doc = (await t.app.inject({ url: '/docs/json' })).json();
    const op = doc.paths['/api/v1/interactions/batch'].post;
    expect(op.operationId).toBe('createInteractionsBatch');
    expect(op.tags).toEqual(['interactions']);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '201', '400', '401', '403', '404']));
    const single = doc.paths['/api/v1/interactions'].post;
    expect(JSON.stringify(single.requestBody)).toContain('created_at');
  });
});
