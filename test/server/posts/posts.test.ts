import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { insertEngagements } from '../../helpers/engagements.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

async function seed(count: number, opts: (n: number) => Partial<Parameters<typeof makeStatus>[0]> = () => ({})): Promise<void> {
  const statuses = Array.from({ length: count }, (_, i) => makeStatus({ n: i + 1, ageHours: count - i, ...opts(i + 1) }));
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await t.adminHeaders(), payload: { statuses } });
  expect(res.statusCode).toBe(201);
}

describe('POST /api/v1/posts', () => {
  it('stores a status and returns the full Mastodon shape', async () => {
    const input = {
      ...makeStatus({ n: 1, tags: ['Rust', 'rust'] }),
      media_attachments: [{ id: 'm1', type: 'image' }],
      extra_field: 'kept',
    };
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/posts', headers: await t.adminHeaders(), payload: input });
    expect(res.statusCode).toBe(201);
    const status = res.json();
    expect(status.id).toBe(postId(1));
    expect(status.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(status.tags).toEqual([{ name: 'rust', url: 'https://social.example/tags/rust' }]);
    // What an attachment lacks, Mastodon sends as null (a client reads url, preview_url... on every one).
    const missing = { url: null, preview_url: null, remote_url: null, description: null, blurhash: null };
    expect(status.media_attachments).toEqual([{ id: 'm1', type: 'image', ...missing }]);
    for (const key of ['mentions', 'emojis', 'filtered']) expect(status[key]).toEqual([]);
    for (const key of ['reblog', 'poll', 'card', 'in_reply_to_id', 'in_reply_to_account_id', 'edited_at', 'application']) {
      expect(status).toHaveProperty(key, null);
    }
    expect(status).toMatchObject({
      favourited: false,
      reblogged: false,
      bookmarked: false,
      muted: false,
      sensitive: false,
      spoiler_text: '',
    });
    expect(status.account).toMatchObject({
      id: 'acc-author1',
      username: 'author1',
      acct: 'author1',
      display_name: 'AUTHOR1',
      fields: [],
      emojis: [],
    });
    expect(status.account.avatar_static).toBe(status.account.avatar);
    const stored = await t.database.db.selectFrom('posts').select('original_json').where('id', '=', postId(1)).executeTakeFirstOrThrow();
    expect(JSON.parse(stored.original_json ?? '{}').extra_field).toBe('kept');
  });

  it('needs admin: 401 without a token, 403 with a user token', async () => {
    const payload = makeStatus({ n: 1 });
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/posts', payload })).statusCode).toBe(401);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/posts', headers: await t.userHeaders('u1'), payload });
    expect(res.statusCode).toBe(403);
  });

  it('rejects a bad visibility with the field named', async () => {
    const payload = { ...makeStatus({ n: 1 }), visibility: 'everyone' };
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/posts', headers: await t.adminHeaders(), payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().field).toBe('visibility');
  });

  it('generates sortable ids when none is given', async () => {
    const headers = await t.adminHeaders();
    const { id: _id, ...older } = makeStatus({ n: 1, ageHours: 5 });
    const { id: _id2, ...newer } = makeStatus({ n: 2, ageHours: 1 });
    const a = (await t.app.inject({ method: 'POST', url: '/api/v1/posts', headers, payload: older })).json();
    const b = (await t.app.inject({ method: 'POST', url: '/api/v1/posts', headers, payload: newer })).json();
    expect(a.id).toMatch(/^\d+$/);
    expect(BigInt(b.id) > BigInt(a.id)).toBe(true);
  });

  it('stores a reblog with its original nested', async () => {
    const original = makeStatus({ n: 1, author: 'orig', tags: ['art'] });
    const reblog = { ...makeStatus({ n: 2, author: 'booster' }), content: '', reblog: original };
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/posts', headers: await t.adminHeaders(), payload: reblog });
    expect(res.statusCode).toBe(201);
    expect(res.json().reblog).toMatchObject({ id: postId(1), account: { username: 'orig' } });
    expect((await t.app.inject({ url: `/api/v1/posts/${postId(1)}` })).statusCode).toBe(200);
  });
});

describe('GET /api/v1/posts', () => {
  it('is public and pages with max_id, since_id, min_id and a Link header', async () => {
    await seed(10);
    const first = await t.app.inject({ url: '/api/v1/posts?limit=4' });
    expect(first.statusCode).toBe(200);
    expect(first.json().map((s: { id: string }) => s.id)).toEqual([10, 9, 8, 7].map(postId));
    const link = first.headers.link as string;
    // No public URL and no socket (inject): the documented last resort, never the Host header.
    expect(link).toContain(`<http://localhost/api/v1/posts?limit=4&max_id=${postId(7)}>; rel="next"`);
    expect(link).toContain(`min_id=${postId(10)}>; rel="prev"`);

    const next = await t.app.inject({ url: `/api/v1/posts?limit=4&max_id=${postId(7)}` });
    expect(next.json().map((s: { id: string }) => s.id)).toEqual([6, 5, 4, 3].map(postId));

    const since = await t.app.inject({ url: `/api/v1/posts?limit=3&since_id=${postId(2)}` });
    expect(since.json().map((s: { id: string }) => s.id)).toEqual([10, 9, 8].map(postId));

    const min = await t.app.inject({ url: `/api/v1/posts?limit=3&min_id=${postId(2)}` });
    expect(min.json().map((s: { id: string }) => s.id)).toEqual([5, 4, 3].map(postId));
  });

  it('compares numeric ids as numbers, not text', async () => {
    const headers = await t.adminHeaders();
    for (const id of ['9', '10', '100']) {
      await t.app.inject({ method: 'POST', url: '/api/v1/posts', headers, payload: { ...makeStatus({ n: 1 }), id } });
    }
    const res = await t.app.inject({ url: '/api/v1/posts?max_id=100' });
    expect(res.json().map((s: { id: string }) => s.id)).toEqual(['10', '9']);
  });

  it('filters by account_id and tag', async () => {
    await seed(6, (n) => ({ author: n % 2 === 0 ? 'even' : 'odd', tags: n % 3 === 0 ? ['three'] : [] }));
    const byAuthor = (await t.app.inject({ url: '/api/v1/posts?account_id=acc-even' })).json();
    expect(byAuthor.map((s: { id: string }) => s.id)).toEqual([6, 4, 2].map(postId));
    const byTag = (await t.app.inject({ url: '/api/v1/posts?tag=%23Three' })).json();
    expect(byTag.map((s: { id: string }) => s.id)).toEqual([6, 3].map(postId));
  });

  it('rejects a limit outside 1..40 naming the field', async () => {
    for (const limit of ['0', '41', 'abc']) {
      const res = await t.app.inject({ url: `/api/v1/posts?limit=${limit}` });
      expect(res.statusCode).toBe(400);
      expect(res.json().field).toBe('limit');
    }
  });

  it('404s an unknown post', async () => {
    const res = await t.app.inject({ url: '/api/v1/posts/123' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('Resource not found');
  });
});

describe('DELETE /api/v1/posts/:id', () => {
  it('deletes as admin only', async () => {
    await seed(2);
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/api/v1/posts/${postId(1)}`, headers: await t.userHeaders('u') })).statusCode,
    ).toBe(403);
    const res = await t.app.inject({ method: 'DELETE', url: `/api/v1/posts/${postId(1)}`, headers: await t.adminHeaders() });
    expect(res.statusCode).toBe(200);
    expect(res.json().id).toBe(postId(1));
    expect((await t.app.inject({ url: `/api/v1/posts/${postId(1)}` })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/v1/posts/${postId(1)}`, headers: await t.adminHeaders() })).statusCode).toBe(
      404,
    );
  });
});

describe('GET /api/v1/posts/trending', () => {
  it('ranks by distinct engagers decayed with age, never by the counters a status claims', async () => {
    const headers = await t.adminHeaders();
    const statuses = [
      makeStatus({ n: 1, ageHours: 48, favourites: 100 }), // 32 engagers · 2^-4 = 2
      makeStatus({ n: 2, ageHours: 1, favourites: 10 }), // 3 engagers · 2^(-1/12) ≈ 2.83
      makeStatus({ n: 3, ageHours: 2, favourites: 5000 }), // claimed, no engager
      makeStatus({ n: 4, ageHours: 100, favourites: 1000 }), // outside the window
    ];
    await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers, payload: { statuses } });
    await insertEngagements(t.database.db, [
      { postId: postId(1), userIds: Array.from({ length: 32 }, (_, i) => `reader${i}`) },
      { postId: postId(2), userIds: ['reader1', 'reader2', 'reader3'] },
      { postId: postId(4), userIds: Array.from({ length: 40 }, (_, i) => `reader${i}`) },
    ]);
    const res = await t.app.inject({ url: '/api/v1/posts/trending' });
    expect(res.statusCode).toBe(200);
    expect(res.json().map((s: { id: string }) => s.id)).toEqual([postId(2), postId(1)]);
  });

  it('never lists a sensitive post: trending is read by nobody in particular, so no allow_sensitive applies', async () => {
    const headers = await t.adminHeaders();
    const statuses = [{ ...makeStatus({ n: 1, ageHours: 1 }), sensitive: true }, makeStatus({ n: 2, ageHours: 1 })];
    await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers, payload: { statuses } });
    await insertEngagements(t.database.db, [
      { postId: postId(1), userIds: ['reader1', 'reader2', 'reader3', 'reader4', 'reader5'] },
      { postId: postId(2), userIds: ['reader1'] },
    ]);
    expect((await t.app.inject({ url: `/api/v1/posts/${postId(1)}` })).json().sensitive).toBe(true);
    const res = await t.app.inject({ url: '/api/v1/posts/trending' });
    expect(res.statusCode).toBe(200);
    expect(res.json().map((s: { id: string }) => s.id)).toEqual([postId(2)]);
  });
});
