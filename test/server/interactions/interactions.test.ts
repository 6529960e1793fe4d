import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
  const statuses = [1, 2, 3].map((n) => makeStatus({ n, author: `a${n}`, tags: ['cats'] }));
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await t.adminHeaders(), payload: { statuses } });
  expect(res.statusCode).toBe(201);
});
afterEach(async () => {
  await t.close();
});

async function log(userId: string, n: number, action = 'favorite', headers?: Record<string, string>) {
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/interactions',
    headers: headers ?? (await t.userHeaders(userId)),
    payload: { user_id: userId, post_id: postId(n), action_type: action },
  });
}

async function counts(n: number) {
  return (await t.app.inject({ url: `/api/v1/interactions/counts/${postId(n)}` })).json().data;
}

describe('POST /api/v1/interactions', () => {
  it('creates with 201 in the envelope and updates the post counts', async () => {
    const res = await log('u1', 1);
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.data).toMatchObject({ user_id: 'u1', post_id: postId(1), action_type: 'favorite', context: null });
    expect(body.meta.request_id).toBe(res.headers['x-request-id']);
    expect(await counts(1)).toMatchObject({ favourites_count: 1, reblogs_count: 0, bookmarks_count: 0 });
    expect((await t.app.inject({ url: `/api/v1/posts/${postId(1)}` })).json().favourites_count).toBe(1);
    await log('u1', 1, 'reblog');
    await log('u1', 1, 'bookmark');
    expect(await counts(1)).toMatchObject({ favourites_count: 1, reblogs_count: 1, bookmarks_count: 1 });
  });

  it('is idempotent per user, post and action', async () => {
    const first = await log('u1', 1);
    const again = await log('u1', 1);
    expect(again.statusCode).toBe(200);
    expect(again.json().data.id).toBe(first.json().data.id);
    expect((await counts(1)).favourites_count).toBe(1);
  });

  it('rejects an unknown action_type with 400 Invalid parameter naming action_type', async () => {
    const res = await log('u1', 1, 'like');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'Invalid parameter', field: 'action_type', status_code: 400 });
  });

  it('names a missing field and rejects unknown ones', async () => {
    const headers = await t.userHeaders('u1');
    const missing = await t.app.inject({
      method: 'POST',
      url: '/api/v1/interactions',
      headers,
      payload: { user_id: 'u1', action_type: 'favorite' },
    });
    expect(missing.json()).toMatchObject({ error: 'Invalid request', field: 'post_id' });
    const extra = await t.app.inject({
      method: 'POST',
      url: '/api/v1/interactions',
      headers,
      payload: { user_id: 'u1', post_id: postId(1), action_type: 'favorite', foo: 1 },
    });
    expect(extra.json()).toMatchObject({ error: 'Invalid request', field: 'foo' });
  });

  it('401 without a token, 403 for another user, admin may log for anyone', async () => {
    const anon = await t.app.inject({
      method: 'POST',
      url: '/api/v1/interactions',
      payload: { user_id: 'u1', post_id: postId(1), action_type: 'favorite' },
    });
    expect(anon.statusCode).toBe(401);
    expect((await log('u2', 1, 'favorite', await t.userHeaders('u1'))).statusCode).toBe(403);
    expect((await log('u2', 1, 'favorite', await t.adminHeaders())).statusCode).toBe(201);
  });

  it('404s an unknown post', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/interactions',
      headers: await t.userHeaders('u1'),
      payload: { user_id: 'u1', post_id: '999', action_type: 'favorite' },
    });
    expect(res.statusCode).toBe(404);
  });

  it('keeps context and stores the author and tag affinities in the same write', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/interactions',
      headers: await t.userHeaders('u1'),
      payload: { user_id: 'u1', post_id: postId(2), action_type: 'reblog', context: { source: 'recommendations', position: 3 } },
    });
    expect(res.json().data.context).toEqual({ source: 'recommendations', position: 3 });
    const rows = await t.database.db.selectFrom('user_affinities').selectAll().where('user_id', '=', 'u1').orderBy('kind').execute();
    expect(rows.map((r) => [r.kind, r.target, r.score])).toEqual([
      ['author', 'acc-a2', 2],
      ['tag', 'cats', 2],
    ]);
  });
});

describe('undo', () => {
  it('removes the effect of an unfavourite on counts and affinities', async () => {
    await log('u1', 1);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/interactions/undo',
      headers: await t.userHeaders('u1'),
      payload: { user_id: 'u1', post_id: postId(1), action_type: 'favorite' },
    });
    expect(res.statusCode).toBe(200);
    expect((await counts(1)).favourites_count).toBe(0);
    const affinity = await t.database.db
      .selectFrom('user_affinities')
      .select('score')
      .where('user_id', '=', 'u1')
      .where('kind', '=', 'author')
      .executeTakeFirstOrThrow();
    expect(Math.abs(affinity.score)).toBeLessThan(1e-9);
    // A second undo has nothing to undo.
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/v1/interactions/undo',
      headers: await t.userHeaders('u1'),
      payload: { user_id: 'u1', post_id: postId(1), action_type: 'favorite' },
    });
    expect(again.statusCode).toBe(404);
    // And it can be favourited again.
    expect((await log('u1', 1)).statusCode).toBe(201);
  });

  it('DELETE by id is limited to the owner', async () => {
    const id = (await log('u1', 1)).json().data.id;
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/api/v1/interactions/${id}`, headers: await t.userHeaders('u2') })).statusCode,
    ).toBe(403);
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/api/v1/interactions/${id}`, headers: await t.userHeaders('u1') })).statusCode,
    ).toBe(200);
    expect((await counts(1)).favourites_count).toBe(0);
  });
});

describe('GET /api/v1/interactions', () => {
  it("lists a user's own interactions newest first; another user's is 403", async () => {
    await log('u1', 1);
    await log('u1', 2, 'bookmark');
    await log('u2', 3);
    const res = await t.app.inject({ url: '/api/v1/interactions?user_id=u1', headers: await t.userHeaders('u1') });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((i: { post_id: string }) => i.post_id)).toEqual([postId(2), postId(1)]);
    const filtered = await t.app.inject({
      url: '/api/v1/interactions?user_id=u1&action_type=bookmark',
      headers: await t.userHeaders('u1'),
    });
    expect(filtered.json().data).toHaveLength(1);
    expect((await t.app.inject({ url: '/api/v1/interactions?user_id=u2', headers: await t.userHeaders('u1') })).statusCode).toBe(403);
    expect((await t.app.inject({ url: '/api/v1/interactions?user_id=u2' })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/api/v1/interactions?user_id=u2', headers: await t.adminHeaders() })).json().data).toHaveLength(1);
  });
});

describe('concurrent interactions (group commit)', () => {
  it('resolves each of a burst on its own (new, duplicate, missing post) and stores every acknowledged one', async () => {
    const headers = await t.adminHeaders();
    const send = (userId: string, post: string, action = 'favorite') =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/interactions',
        headers,
        payload: { user_id: userId, post_id: post, action_type: action },
      });
    const burst = await Promise.all([
      send('u1', postId(1)),
      send('u2', postId(1)),
      send('u1', postId(1)),
      send('u3', '999'),
      send('u1', postId(2), 'reblog'),
      send('u3', postId(3), 'bookmark'),
    ]);
    const statuses = burst.map((r) => r.statusCode);
    expect(statuses[3]).toBe(404);
    // The duplicate (u1, post 1, favorite): one is new, the other returns the same row.
    expect([statuses[0], statuses[2]].sort()).toEqual([200, 201]);
    expect(burst[0].json().data.id).toBe(burst[2].json().data.id);
    expect([statuses[1], statuses[4], statuses[5]]).toEqual([201, 201, 201]);

    const stored = await t.database.db.selectFrom('interactions').select(['id', 'user_id', 'post_id', 'action_type']).execute();
    const acknowledged = burst.filter((r) => r.statusCode < 300).map((r) => r.json().data.id as string);
    expect(new Set(stored.map((r) => r.id))).toEqual(new Set(acknowledged));
    expect(stored).toHaveLength(4);
    expect(await counts(1)).toMatchObject({ favourites_count: 2 });
    expect(await counts(2)).toMatchObject({ reblogs_count: 1 });
    expect(await counts(3)).toMatchObject({ bookmarks_count: 1 });
    // The missing post left nothing behind; u3's bookmark stored its affinities.
    const u3 = await t.database.db
      .selectFrom('user_affinities')
      .select(['kind', 'target'])
      .where('user_id', '=', 'u3')
      .orderBy('kind')
      .execute();
    expect(u3).toEqual([
      { kind: 'author', target: 'acc-a3' },
      { kind: 'tag', target: 'cats' },
    ]);
  });
});

describe('GET /api/v1/interactions paging', () => {
  it('links a full page to the next one (rel="next", max_id), and the last page to none', async () => {
    for (const n of [1, 2, 3]) for (const action of ['favorite', 'bookmark']) expect((await log('u1', n, action)).statusCode).toBe(201);
    const headers = await t.userHeaders('u1');
    const seen: string[] = [];
    let path: string | undefined = '/api/v1/interactions?user_id=u1&limit=4&utm=x';
    let pages = 0;
    while (path !== undefined && pages < 5) {
      const res = await t.app.inject({ url: path, headers });
      expect(res.statusCode).toBe(200);
      seen.push(...(res.json().data as Array<{ id: string }>).map((i) => i.id));
      pages += 1;
      const link = res.headers.link as string | undefined;
      const next = link === undefined ? undefined : /<([^>]*)>; rel="next"/.exec(link)?.[1];
      if (next !== undefined) {
        // The route's own parameters only, on the service's base, never the unknown `utm`.
        expect(next).toMatch(/^http:\/\/localhost\/api\/v1\/interactions\?/);
        expect(next).not.toContain('utm');
      }
      path = next === undefined ? undefined : `${new URL(next).pathname}${new URL(next).search}`;
    }
    expect(pages).toBe(2);
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
  });
});
