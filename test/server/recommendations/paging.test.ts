import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeRecommendationCursor, servedHash } from '../../../server/recommendations/recommendation.service.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';
import { followNext, linkUrl } from '../posts/link-paginator.js';

let t: TestApp;

const AUTHORS = Array.from({ length: 12 }, (_, i) => `author${i + 1}`);
const TAGS = ['cats', 'rust', 'music', 'art'];

/** 36 posts, three per author (the per-author cap), so the whole list fits one request of 40. */
async function seedPosts(): Promise<void> {
  const statuses = Array.from({ length: 36 }, (_, i) =>
    makeStatus({
      n: i + 1,
      author: AUTHORS[i % 12],
      tags: [TAGS[i % 4] ?? 'cats'],
      text: `${TAGS[i % 4]} thoughts number ${i + 1}`,
      ageHours: 1 + (i % 9) * 3,
      favourites: (i * 7) % 23,
      reblogs: i % 5,
    }),
  );
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await t.adminHeaders(), payload: { statuses } });
  expect(res.statusCode).toBe(201);
}

beforeEach(async () => {
  t = await createTestApp();
  await seedPosts();
});
afterEach(async () => {
  await t.close();
});

const ids = (body: unknown): string[] => (body as { id: string }[]).map((s) => s.id);

describe('GET /api/v1/recommendations: Link paging', () => {
  it('a paginator following rel="next" gets the whole ranked list, each post once, in order, and stops', async () => {
    const headers = await t.userHeaders('u1');
    const whole = ids((await t.app.inject({ url: '/api/v1/recommendations?user_id=u1&limit=40', headers })).json());
    expect(whole).toHaveLength(36);
    const { pages, ids: seen } = await followNext(t.app, '/api/v1/recommendations?user_id=u1&limit=7', { headers });
    expect(pages.map((p) => p.length)).toEqual([7, 7, 7, 7, 7, 1]);
    expect(seen).toEqual(whole);
  });

  it('never repeats a post when the ranking moves between pages (a like, less of an author, a new hot post)', async () => {
    const headers = await t.userHeaders('u1');
    const first = await t.app.inject({ url: '/api/v1/recommendations?user_id=u1&limit=5', headers });
    const firstIds = ids(first.json());
    const next = linkUrl(first.headers.link as string, 'next');
    expect(next).toBeDefined();
    // The user leaves cold start (the whole ranking changes), turns an author down, and a new post trends.
    const liked = await t.app.inject({
      method: 'POST',
      url: '/api/v1/interactions',
      headers,
      payload: { user_id: 'u1', post_id: firstIds[1], action_type: 'favorite' },
    });
    expect(liked.statusCode).toBe(201);
    const less = await t.app.inject({
      method: 'POST',
      url: '/api/v1/recommendations/feedback',
      headers,
      payload: { user_id: 'u1', post_id: firstIds[0], feedback: 'less' },
    });
    expect(less.statusCode).toBe(201);
    const hot = makeStatus({ n: 99, author: 'newcomer', tags: ['cats'], ageHours: 0, favourites: 500, reblogs: 100 });
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/posts', headers: await t.adminHeaders(), payload: hot })).statusCode).toBe(
      201,
    );

    const url = new URL(next ?? '');
    const rest = await followNext(t.app, `${url.pathname}${url.search}`, { headers });
    const all = [...firstIds, ...rest.ids];
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBeGreaterThan(20);
  });

  it('links keep the filters, encoded, on the configured base; rel="prev" asks for posts newer than the page', async () => {
    await t.close();
    t = await createTestApp({ publicUrl: 'https://recs.example.org' });
    await seedPosts();
    const headers = { ...(await t.userHeaders('u1')), host: 'evil.example' };
    const exclude = `${postId(36)},x>; rel="prev", <https://other.example/`;
    const res = await t.app.inject({
      url: `/api/v1/recommendations?user_id=u1&limit=4&exclude_ids=${encodeURIComponent(exclude)}&utm=1`,
      headers,
    });
    expect(res.statusCode).toBe(200);
    const page = ids(res.json());
    expect(page).not.toContain(postId(36));
    const link = res.headers.link as string;
    expect(link).not.toContain('evil');
    expect(link.match(/rel="/g)).toHaveLength(2);

    const next = new URL(linkUrl(link, 'next') ?? '');
    expect(`${next.origin}${next.pathname}`).toBe('https://recs.example.org/api/v1/recommendations');
    expect(Object.fromEntries(next.searchParams)).toMatchObject({ user_id: 'u1', limit: '4', exclude_ids: exclude });
    expect(next.searchParams.has('utm')).toBe(false);
    const second = await t.app.inject({ url: `${next.pathname}${next.search}`, headers });
    expect(ids(second.json()).filter((id) => page.includes(id) || id === postId(36))).toEqual([]);

    const newest = [...page].sort((a, b) => (BigInt(a) > BigInt(b) ? -1 : 1))[0];
    const prev = new URL(linkUrl(link, 'prev') ?? '');
    expect(prev.searchParams.get('min_id')).toBe(newest);
    expect(prev.searchParams.has('cursor')).toBe(false);
    const newer = ids((await t.app.inject({ url: `${prev.pathname}${prev.search}`, headers })).json());
    for (const id of newer) expect(BigInt(id) > BigInt(newest ?? '0')).toBe(true);
  });

  it('min_id keeps only posts newer than it, like since_id', async () => {
    const headers = await t.userHeaders('u1');
    const res = await t.app.inject({ url: `/api/v1/recommendations?user_id=u1&limit=40&min_id=${postId(30)}`, headers });
    expect(res.statusCode).toBe(200);
    expect(ids(res.json()).sort()).toEqual([31, 32, 33, 34, 35, 36].map(postId));
  });

  it('refuses a cursor it did not write, or one older than a day, with 400 naming cursor', async () => {
    const headers = await t.userHeaders('u1');
    const stale = encodeRecommendationCursor({ rankedAtMs: Date.now() - 25 * 3_600_000, served: [servedHash(postId(1))] });
    for (const cursor of ['garbage', 'AAAA', stale, 'A'.repeat(5000)]) {
      const res = await t.app.inject({ url: `/api/v1/recommendations?user_id=u1&cursor=${cursor}`, headers });
      expect(res.statusCode, cursor.slice(0, 20)).toBe(400);
      expect(res.json().field).toBe('cursor');
    }
  });
});
