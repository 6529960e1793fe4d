import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';
import { experimentBody } from '../experiments/experiment-bodies.js';

let t: TestApp;

const AUTHORS = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'];
const TAGS = ['cats', 'rust', 'music', 'art'];

/** 36 posts: author k writes posts k, k+6, ...; engagement and age vary. */
async function seedPosts(): Promise<void> {
  const statuses = Array.from({ length: 36 }, (_, i) => {
    const n = i + 1;
    return makeStatus({
      n,
      author: AUTHORS[i % 6],
      tags: [TAGS[i % 4] ?? 'cats'],
      text: `${TAGS[i % 4]} thoughts from ${AUTHORS[i % 6]} number ${n}`,
      ageHours: 1 + (i % 9) * 3,
      favourites: (i * 7) % 23,
      reblogs: i % 5,
    });
  });
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

async function recommend(userId: string, query = '', headers?: Record<string, string>) {
  return t.app.inject({ url: `/api/v1/recommendations?user_id=${userId}${query}`, headers: headers ?? (await t.userHeaders(userId)) });
}

type Item = {
  id: string;
  account: { username: string };
  ranking_score: number;
  recommendation_metadata: { reason_code: string; reason_string: string; score: number };
};

async function interact(userId: string, n: number, action = 'favorite') {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/interactions',
    headers: await t.userHeaders(userId),
    payload: { user_id: userId, post_id: postId(n), action_type: action },
  });
  expect(res.statusCode).toBe(201);
}

describe('GET /api/v1/recommendations: access and validation', () => {
  it('401 without a token, 403 for another user, admin for anyone', async () => {
    const anon = await t.app.inject({ url: '/api/v1/recommendations?user_id=u1' });
    expect(anon.statusCode).toBe(401);
    expect(anon.json().error).toBe('Authentication required');
    // 401 wins over validation: no token and no user_id is still 401.
    expect((await t.app.inject({ url: '/api/v1/recommendations' })).statusCode).toBe(401);
    expect((await recommend('u2', '', await t.userHeaders('u1'))).statusCode).toBe(403);
    expect((await recommend('u2', '', await t.adminHeaders())).statusCode).toBe(200);
  });

  it('400 Invalid request naming user_id when it is missing', async () => {
    const res = await t.app.inject({ url: '/api/v1/recommendations', headers: await t.adminHeaders() });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'Invalid request', field: 'user_id' });
    expect(res.json().message).toContain('user_id');
  });

  it('limit must be an integer 1..40 (no clamping)', async () => {
    for (const limit of ['0', '41', '100', '1.5', 'ten', '-1']) {
      const res = await recommend('u1', `&limit=${limit}`);
      expect(res.statusCode, limit).toBe(400);
      expect(res.json().field).toBe('limit');
    }
    expect((await recommend('u1', '&limit=40')).statusCode).toBe(200);
    expect((await recommend('u1', '&limit=1')).json()).toHaveLength(1);
    expect((await recommend('u1', '&limit=17')).json()).toHaveLength(17);
    // The default 20: past the diversity cap's 18 here (6 authors × 3 posts), the best of the rest fills it.
    expect((await recommend('u1')).json()).toHaveLength(20);
  });

  it('exclude_ids takes at most 200 ids', async () => {
    const ids = Array.from({ length: 201 }, (_, i) => String(i + 1)).join(',');
    const res = await recommend('u1', `&exclude_ids=${ids}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().field).toBe('exclude_ids');
    const ok = await recommend('u1', `&exclude_ids=${ids.split(',').slice(0, 200).join(',')}`);
    expect(ok.statusCode).toBe(200);
  });
});

describe('recommended items', () => {
  it('carry the Status fields, the spec fields and metadata, sorted by score', async () => {
    const res = await recommend('u1', '&limit=10');
    expect(res.statusCode).toBe(200);
    const items = res.json<(Item & Record<string, unknown>)[]>();
    expect(items).toHaveLength(10);
    for (const item of items) {
      expect(item).toMatchObject({ is_recommendation: true, favourited: false, reblogged: false });
      expect(typeof item.content).toBe('string');
      expect(item.created_at).toMatch(/\.\d{3}Z$/);
      expect(item.account).toMatchObject({
        id: expect.any(String),
        username: expect.any(String),
        display_name: expect.any(String),
        avatar: expect.any(String),
      });
      for (const key of ['favourites_count', 'reblogs_count', 'replies_count']) expect(Number.isInteger(item[key])).toBe(true);
      for (const key of ['media_attachments', 'mentions', 'tags', 'emojis']) expect(Array.isArray(item[key])).toBe(true);
      expect(item.ranking_score).toBeGreaterThanOrEqual(0);
      expect(item.ranking_score).toBeLessThanOrEqual(1);
      expect(item.recommendation_metadata.score).toBe(item.ranking_score);
      expect(['AUTHOR_INTERACTION', 'HIGH_ENGAGEMENT', 'SEMANTIC_MATCH', 'TRENDING_TAG']).toContain(
        item.recommendation_metadata.reason_code,
      );
      expect(item.recommendation_reason).toBe(item.recommendation_metadata.reason_string);
    }
    const scores = items.map((i) => i.ranking_score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('POST gives the same list as GET', async () => {
    const get = (await recommend('u1', '&limit=7')).json<Item[]>();
    const post = await t.app.inject({
      method: 'POST',
      url: '/api/v1/recommendations',
      headers: await t.userHeaders('u1'),
      payload: { user_id: 'u1', limit: 7 },
    });
    expect(post.statusCode).toBe(200);
    expect(post.json<Item[]>().map((i) => i.id)).toEqual(get.map((i) => i.id));
  });

  it('POST validates the body: limit, exclude_ids, unknown fields, missing user_id', async () => {
    const headers = await t.adminHeaders();
    const cases: [Record<string, unknown>, string][] = [
      [{ user_id: 'u1', limit: 41 }, 'limit'],
      [{ user_id: 'u1', limit: 0 }, 'limit'],
      [{ user_id: 'u1', exclude_ids: Array.from({ length: 201 }, (_, i) => String(i)) }, 'exclude_ids'],
      [{ user_id: 'u1', colour: 'red' }, 'colour'],
      [{ limit: 5 }, 'user_id'],
    ];
    for (const [payload, field] of cases) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/recommendations', headers, payload });
      expect(res.statusCode, field).toBe(400);
      expect(res.json().field).toBe(field);
    }
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/recommendations', payload: { user_id: 'u1' } })).statusCode).toBe(401);
  });

  it("leave out excluded ids, posts the user interacted with, and the user's own posts", async () => {
    const first = (await recommend('u1', '&limit=3')).json<Item[]>().map((i) => i.id);
    const excluded = (await recommend('u1', `&limit=40&exclude_ids=${first.join(',')}`)).json<Item[]>().map((i) => i.id);
    for (const id of first) expect(excluded).not.toContain(id);

    await interact('u1', 5);
    const after = (await recommend('u1', '&limit=40')).json<Item[]>().map((i) => i.id);
    expect(after).not.toContain(postId(5));

    // acc-alice's own list never shows alice's posts.
    const own = (await recommend('acc-alice', '&limit=40')).json<Item[]>();
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((i) => i.account.username !== 'alice')).toBe(true);
  });

  it('cap each author at 3 posts per list while other authors have posts to show, then fill the list', async () => {
    const perAuthor = (items: Item[]): number[] => {
      const counts = new Map<string, number>();
      for (const i of items) counts.set(i.account.username, (counts.get(i.account.username) ?? 0) + 1);
      return [...counts.values()];
    };
    // 6 authors × 3 posts: the cap decides the whole list.
    const capped = (await recommend('u1', '&limit=18')).json<Item[]>();
    expect(capped).toHaveLength(18);
    expect(perAuthor(capped)).toEqual([3, 3, 3, 3, 3, 3]);
    // Deeper than the cap allows: the same 18 first, then the best of the rest, never a short list.
    const full = (await recommend('u1', '&limit=40')).json<Item[]>();
    expect(full.length).toBeGreaterThan(18);
    expect(full.slice(0, 18).map((i) => i.id)).toEqual(capped.map((i) => i.id));
    expect(Math.max(...perAuthor(full))).toBeGreaterThan(3);
    const rest = full.slice(18);
    rest.forEach((item, k) => k > 0 && expect(item.ranking_score).toBeLessThanOrEqual(rest[k - 1]!.ranking_score));
  });

  it('honour max_id and since_id', async () => {
    const older = (await recommend('u1', `&limit=40&max_id=${postId(10)}`)).json<Item[]>();
    expect(older.length).toBeGreaterThan(0);
    expect(older.every((i) => BigInt(i.id) < BigInt(postId(10)))).toBe(true);
    const newer = (await recommend('u1', `&limit=40&since_id=${postId(30)}`)).json<Item[]>();
    expect(newer.length).toBeGreaterThan(0);
    expect(newer.every((i) => BigInt(i.id) > BigInt(postId(30)))).toBe(true);
  });
});

describe('cold start and personalisation', () => {
  it('a user without history gets engaging and trending posts, with reasons that say so', async () => {
    const items = (await recommend('newcomer', '&limit=10')).json<Item[]>();
    for (const item of items) {
      expect(['HIGH_ENGAGEMENT', 'TRENDING_TAG']).toContain(item.recommendation_metadata.reason_code);
      expect(item.recommendation_metadata.reason_string).toContain('still learning');
    }
  });

  it('personalises once interactions arrive: the liked author rises with AUTHOR_INTERACTION', async () => {
    const rankOf = (items: Item[], author: string) => items.findIndex((i) => i.account.username === author);
    const before = (await recommend('u9', '&limit=40')).json<Item[]>();
    // Favourite two of frank's posts (frank writes posts 6, 12, 18, 24, 30, 36).
    await interact('u9', 6);
    await interact('u9', 12, 'reblog');
    const after = (await recommend('u9', '&limit=40')).json<Item[]>();
    // Among the top three (engagement and recency weigh as much as the author: DEFAULT_ALGORITHM_CONFIG), higher than before.
    const top = rankOf(after, 'frank');
    expect(top).toBeLessThanOrEqual(2);
    expect(top).toBeLessThan(rankOf(before, 'frank'));
    expect(after[top]?.recommendation_metadata.reason_code).toBe('AUTHOR_INTERACTION');
    expect(after[top]?.recommendation_metadata.reason_string).toContain('@frank');
    expect(after[top]?.recommendation_metadata.reason_string).not.toContain('still learning');
  });
});

describe('feedback', () => {
  it('"less" on an author demotes that author\'s posts for that user only', async () => {
    // Give u1 some history so the personal ranking applies.
    await interact('u1', 1);
    await interact('u1', 8);
    const positions = (items: Item[], author: string) => items.flatMap((i, k) => (i.account.username === author ? [k] : []));
    const before = (await recommend('u1', '&limit=40')).json<Item[]>();
    const target = before[0]?.account.username ?? '';
    const targetPost = before[0]?.id ?? '';
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/recommendations/feedback',
      headers: await t.userHeaders('u1'),
      payload: { user_id: 'u1', post_id: targetPost, feedback: 'less' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ user_id: 'u1', post_id: targetPost, feedback: 'less' });
    const after = (await recommend('u1', '&limit=40')).json<Item[]>();
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const beforePos = positions(before, target).filter((k) => before[k]?.id !== targetPost);
    const afterPos = positions(after, target);
    expect(afterPos.length).toBeGreaterThan(0);
    expect(mean(afterPos)).toBeGreaterThan(mean(beforePos) + 3);
    expect(after.some((i) => i.id === targetPost)).toBe(false);
    // Another user's ranking is untouched.
    const other = (await recommend('u2', '&limit=40', await t.adminHeaders())).json<Item[]>();
    const otherAgain = (await recommend('u2', '&limit=40', await t.adminHeaders())).json<Item[]>();
    expect(otherAgain.map((i) => i.id)).toEqual(other.map((i) => i.id));
  });

  it('validates feedback and access', async () => {
    const headers = await t.userHeaders('u1');
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/v1/recommendations/feedback',
      headers,
      payload: { user_id: 'u1', post_id: postId(1), feedback: 'meh' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'Invalid parameter', field: 'feedback' });
    const other = await t.app.inject({
      method: 'POST',
      url: '/api/v1/recommendations/feedback',
      headers,
      payload: { user_id: 'u2', post_id: postId(1), feedback: 'more' },
    });
    expect(other.statusCode).toBe(403);
    const missing = await t.app.inject({
      method: 'POST',
      url: '/api/v1/recommendations/feedback',
      headers,
      payload: { user_id: 'u1', post_id: '404', feedback: 'more' },
    });
    expect(missing.statusCode).toBe(404);
  });
});

describe('preferences', () => {
  it('GET shows defaults; PUT stores them and mutes take effect', async () => {
    const headers = await t.userHeaders('u1');
    const initial = await t.app.inject({ url: '/api/v1/recommendations/preferences?user_id=u1', headers });
    expect(initial.statusCode).toBe(200);
    expect(initial.json().data).toMatchObject({
      user_id: 'u1',
      muted_authors: [],
      include_reblogs: true,
      recommendation_ratio: null,
      updated_at: null,
    });

    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/recommendations/preferences',
      headers,
      payload: { user_id: 'u1', muted_authors: ['acc-bob'], muted_tags: ['#Music'], recommendation_ratio: 0.5 },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json().data).toMatchObject({ muted_authors: ['acc-bob'], muted_tags: ['music'], recommendation_ratio: 0.5 });

    const items = (await recommend('u1', '&limit=40')).json<(Item & { tags: { name: string }[] })[]>();
    expect(items.length).toBeGreaterThan(0);
    expect(items.some((i) => i.account.username === 'bob')).toBe(false);
    expect(items.some((i) => i.tags.some((tag) => tag.name === 'music'))).toBe(false);

    const partial = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/recommendations/preferences',
      headers,
      payload: { user_id: 'u1', include_reblogs: false },
    });
    expect(partial.json().data).toMatchObject({ muted_authors: ['acc-bob'], include_reblogs: false });
  });

  it('shows learned affinities, and guards access and fields', async () => {
    await interact('u1', 3);
    const got = await t.app.inject({ url: '/api/v1/recommendations/preferences?user_id=u1', headers: await t.userHeaders('u1') });
    expect(got.json().data.learned.authors[0]).toMatchObject({ account_id: 'acc-carol' });
    expect(got.json().data.learned.tags[0]).toMatchObject({ tag: 'music' });
    expect(
      (await t.app.inject({ url: '/api/v1/recommendations/preferences?user_id=u2', headers: await t.userHeaders('u1') })).statusCode,
    ).toBe(403);
    expect((await t.app.inject({ url: '/api/v1/recommendations/preferences?user_id=u1' })).statusCode).toBe(401);
    const bad = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/recommendations/preferences',
      headers: await t.userHeaders('u1'),
      payload: { user_id: 'u1', recommendation_ratio: 2 },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().field).toBe('recommendation_ratio');
  });

  it('allow_sensitive is off by default, round-trips through PUT and GET, and is a 400 when not a boolean', async () => {
    const headers = await t.userHeaders('u3');
    const get = async () => (await t.app.inject({ url: '/api/v1/recommendations/preferences?user_id=u3', headers })).json().data;
    const put = (payload: Record<string, unknown>) =>
      t.app.inject({ method: 'PUT', url: '/api/v1/recommendations/preferences', headers, payload: { user_id: 'u3', ...payload } });
    expect((await get()).allow_sensitive).toBe(false);
    const on = await put({ allow_sensitive: true });
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json().data.allow_sensitive).toBe(true);
    expect((await get()).allow_sensitive).toBe(true);
    // Changing another preference keeps it.
    await put({ include_reblogs: false });
    expect(await get()).toMatchObject({ allow_sensitive: true, include_reblogs: false });
    for (const value of ['true', 1, null, 'yes']) {
      const bad = await put({ allow_sensitive: value });
      expect(bad.statusCode, JSON.stringify(value)).toBe(400);
      expect(bad.json().field).toBe('allow_sensitive');
    }
    expect((await put({ allow_sensitive: false })).json().data.allow_sensitive).toBe(false);
    expect((await get()).allow_sensitive).toBe(false);
  });
});

describe('POST /api/v1/recommendations/seamless', () => {
  it('spreads about 0.3 of the timeline, never adjacent, never at the top, never a post already shown', async () => {
    const existing = Array.from({ length: 20 }, (_, i) => ({ id: postId(36 - i), content: '<p>x</p>', author: 'someone' }));
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/recommendations/seamless',
      headers: await t.userHeaders('u1'),
      payload: { timeline_type: 'home', existing_statuses: existing, max_recommendations: 10 },
    });
    expect(res.statusCode).toBe(200);
    const items = res.json<
      {
        id: string;
        content: { id: string; account: { id: string; username: string }; content: string };
        score: number;
        reason: string;
        insertion_point: number;
      }[]
    >();
    expect(items).toHaveLength(6);
    const points = items.map((i) => i.insertion_point);
    expect(points[0]).toBeGreaterThan(0);
    for (let k = 1; k < points.length; k++) expect((points[k] ?? 0) - (points[k - 1] ?? 0)).toBeGreaterThanOrEqual(2);
    expect(Math.max(...points)).toBeLessThanOrEqual(20);
    const shown = new Set(existing.map((s) => s.id));
    for (const item of items) {
      expect(shown.has(item.content.id)).toBe(false);
      expect(item.content.account).toMatchObject({ id: expect.any(String), username: expect.any(String) });
      expect(typeof item.reason).toBe('string');
    }
  });

  it('respects max_recommendations, validates, and needs a token', async () => {
    const existing = Array.from({ length: 30 }, (_, i) => ({ id: `x${i}`, content: '', author: 'a' }));
    const headers = await t.userHeaders('u1');
    const capped = await t.app.inject({
      method: 'POST',
      url: '/api/v1/recommendations/seamless',
      headers,
      payload: { timeline_type: 'home', existing_statuses: existing, max_recommendations: 2 },
    });
    expect(capped.json()).toHaveLength(2);
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/v1/recommendations/seamless',
      headers,
      payload: { timeline_type: 'sideways', existing_statuses: [] },
    });
    expect(bad.json()).toMatchObject({ error: 'Invalid parameter', field: 'timeline_type' });
    const unbound = await t.app.inject({
      method: 'POST',
      url: '/api/v1/recommendations/seamless',
      headers: await t.adminHeaders(),
      payload: { timeline_type: 'home', existing_statuses: existing },
    });
    expect(unbound.json()).toMatchObject({ field: 'user_id' });
    const anon = await t.app.inject({
      method: 'POST',
      url: '/api/v1/recommendations/seamless',
      payload: { timeline_type: 'home', existing_statuses: [] },
    });
    expect(anon.statusCode).toBe(401);
  });
});

describe('metrics', () => {
  it('times generation per algorithm and reports cache hits', async () => {
    await recommend('u1', '&limit=5');
    await recommend('u1', '&limit=5');
    const text = (await t.app.inject({ url: '/metrics' })).body;
    expect(text).toMatch(/service_recommendation_generation_seconds_count\{algorithm="default"\} 2/);
    expect(text).toMatch(/service_cache_hit_ratio\{cache_type="recommendations"\} 0\.5/);
    expect(text).toMatch(/service_ml_model_predictions\{model_name="default"\} 36/);
  });
});

describe('a warm first page (issue 27: its bytes are kept with the cached list)', () => {
  it('is the same bytes again, and shows a status count another user changed meanwhile', async () => {
    const first = await recommend('warm1', '&limit=10');
    expect(first.statusCode).toBe(200);
    const again = await recommend('warm1', '&limit=10');
    expect(again.body).toBe(first.body);
    const items = first.json<Array<Item & { favourites_count: number }>>();
    const top = items[0]!;
    const n = Number(BigInt(top.id) - BigInt(postId(0)));
    expect(postId(n)).toBe(top.id);
    // Another user's favourite changes the post's count: the kept bytes must not be sent.
    await interact('someone-else', n);
    const after = (await recommend('warm1', '&limit=10')).json<Array<Item & { favourites_count: number }>>();
    expect(after.map((i) => i.id)).toEqual(items.map((i) => i.id));
    expect(after[0]!.favourites_count).toBe(top.favourites_count + 1);
    // Another limit is another page: its own bytes.
    expect((await recommend('warm1', '&limit=5')).json<Item[]>()).toHaveLength(5);
  });
});

describe('a warm first page (issue 27: answered from the page sent before)', () => {
  it('carries the same Link header, whose rel="next" continues after it', async () => {
    const cold = await recommend('warm2', '&limit=6');
    const warm = await recommend('warm2', '&limit=6');
    expect(warm.body).toBe(cold.body);
    expect(warm.headers.link).toBe(cold.headers.link);
    const next = /<([^>]+)>; rel="next"/.exec(String(warm.headers.link))?.[1];
    expect(next).toBeDefined();
    const url = new URL(next!);
    const second = await t.app.inject({ url: `${url.pathname}${url.search}`, headers: await t.userHeaders('warm2') });
    expect(second.statusCode).toBe(200);
    const firstIds = warm.json<Item[]>().map((i) => i.id);
    const secondIds = second.json<Item[]>().map((i) => i.id);
    expect(secondIds).toHaveLength(6);
    expect(secondIds.filter((id) => firstIds.includes(id))).toEqual([]);
  });

  it("is one user's own: another user's interaction changes only that user's page", async () => {
    const a = await recommend('same-a', '&limit=8');
    const b = await recommend('same-b', '&limit=8');
    // Two users without history are ranked alike; each still has their own cached page.
    expect(b.json<Item[]>().map((i) => i.id)).toEqual(a.json<Item[]>().map((i) => i.id));
    const top = a.json<Item[]>()[0]!;
    const n = Number(BigInt(top.id) - BigInt(postId(0)));
    await interact('same-a', n, 'bookmark');
    const aAfter = (await recommend('same-a', '&limit=8')).json<Item[]>();
    expect(aAfter.map((i) => i.id)).not.toEqual(a.json<Item[]>().map((i) => i.id));
    // same-b's list is cached and never saw same-a's bookmark: only the post's counters could
    // differ (a bookmark changes none), so its page is the same bytes.
    expect((await recommend('same-b', '&limit=8')).body).toBe(b.body);
  });

  it('loses a post deleted meanwhile', async () => {
    const first = await recommend('warm4', '&limit=10');
    expect((await recommend('warm4', '&limit=10')).body).toBe(first.body);
    const top = first.json<Item[]>()[0]!;
    const res = await t.app.inject({ method: 'DELETE', url: `/api/v1/posts/${top.id}`, headers: await t.adminHeaders() });
    expect(res.statusCode).toBe(200);
    const after = (await recommend('warm4', '&limit=10')).json<Item[]>();
    expect(after).toHaveLength(10);
    expect(after.map((i) => i.id)).not.toContain(top.id);
  });

  it('is left for the variant once an experiment enrols the user', async () => {
    const before = await recommend('enrolled1', '&limit=8');
    expect((await recommend('enrolled1', '&limit=8')).body).toBe(before.body);
    const admin = await t.adminHeaders();
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/analytics/experiments', headers: admin, payload: experimentBody() });
    expect(created.statusCode).toBe(201);
    const id = created.json<{ data: { id: number } }>().data.id;
    expect((await t.app.inject({ method: 'POST', url: `/api/v1/analytics/experiments/${id}/start`, headers: admin })).statusCode).toBe(200);
    const during = await recommend('enrolled1', '&limit=8');
    expect(during.statusCode).toBe(200);
    // Ranked for the user's variant, not the default page cached a moment ago.
    const metrics = (await t.app.inject({ url: '/metrics' })).body;
    expect(metrics).toMatch(new RegExp(`service_recommendation_generation_seconds_count\\{algorithm="exp${id}:(control|treatment)"\\} 1`));
    expect(metrics).toMatch(/service_recommendation_generation_seconds_count\{algorithm="default"\} 2/);
  });
});
