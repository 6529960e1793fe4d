/**
 * `created_at` on POST /api/v1/interactions (decisions.md: "Interactions carry their time"):
 * stored as given, refused when it cannot be true, and every decay counts from it.
 *
 * Reference values: a favourite weighs 1 and affinities halve every 14 days
 * (AFFINITY_HALF_LIFE_DAYS), so a favourite 28 days old weighs 1 · 2^(−28/14) = 0.25 and one
 * 56 days old 2^(−4) = 0.0625 — worked by hand, not by the code under test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';

const DAY = 86_400_000;

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
  // Posts 1-3 by a1..a3, 60 days old; post 4 by a4, an hour old.
  const statuses = [
    ...[1, 2, 3].map((n) => makeStatus({ n, author: `a${n}`, tags: [`t${n}`], ageHours: 60 * 24 })),
    makeStatus({ n: 4, author: 'a4', tags: ['t4'], ageHours: 1 }),
  ];
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await t.adminHeaders(), payload: { statuses } });
  expect(res.statusCode).toBe(201);
});
afterEach(async () => {
  await t.close();
});

async function log(userId: string, n: number, createdAt?: string, action = 'favorite') {
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/interactions',
    headers: await t.userHeaders(userId),
    payload: { user_id: userId, post_id: postId(n), action_type: action, ...(createdAt === undefined ? {} : { created_at: createdAt }) },
  });
}

const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();

async function learnedAuthors(userId: string): Promise<Record<string, number>> {
  const res = await t.app.inject({ url: `/api/v1/recommendations/preferences?user_id=${userId}`, headers: await t.userHeaders(userId) });
  expect(res.statusCode).toBe(200);
  const authors = res.json().data.learned.authors as { account_id: string; affinity: number }[];
  return Object.fromEntries(authors.map((a) => [a.account_id, a.affinity]));
}

async function storedCount(): Promise<number> {
  const row = await t.database.db
    .selectFrom('interactions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('created_at on POST /api/v1/interactions', () => {
  it('is stored and answered as given, and listed with the interaction', async () => {
    const at = ago(10 * DAY);
    const res = await log('u1', 1, at);
    expect(res.statusCode).toBe(201);
    expect(res.json().data.created_at).toBe(at);
    const row = await t.database.db.selectFrom('interactions').select(['created_at', 'created_at_ms']).executeTakeFirstOrThrow();
    expect(Number(row.created_at_ms)).toBe(Date.parse(at));
    const list = await t.app.inject({ url: '/api/v1/interactions?user_id=u1', headers: await t.userHeaders('u1') });
    expect(list.json().data[0].created_at).toBe(at);
  });

  it('makes an old interaction weigh as old: from the stored state and in a cached profile alike', async () => {
    // Loaded from the stored affinities: 28 days old weighs a quarter, a new one all of it.
    await log('u1', 1, ago(28 * DAY));
    await log('u1', 4);
    const loaded = await learnedAuthors('u1');
    expect(loaded['acc-a1']).toBeCloseTo(0.25, 4);
    expect(loaded['acc-a4']).toBeCloseTo(1, 4);
    // The profile is now cached: a signal 56 days old is applied in memory at its own time.
    await log('u1', 2, ago(56 * DAY));
    const cached = await learnedAuthors('u1');
    expect(cached['acc-a2']).toBeCloseTo(0.0625, 4);
    expect(cached['acc-a1']).toBeCloseTo(0.25, 4);
  });

  it('an undo of an old interaction takes back exactly what it added', async () => {
    await log('u1', 1, ago(28 * DAY));
    await log('u1', 2);
    const undo = await t.app.inject({
      method: 'POST',
      url: '/api/v1/interactions/undo',
      headers: await t.userHeaders('u1'),
      payload: { user_id: 'u1', post_id: postId(1), action_type: 'favorite' },
    });
    expect(undo.statusCode).toBe(200);
    const learned = await learnedAuthors('u1');
    expect(Math.abs(learned['acc-a1'] ?? 0)).toBeLessThan(1e-4);
    expect(learned['acc-a2']).toBeCloseTo(1, 4);
  });

  it('takes a time a little ahead (within the 5-minute skew) as now, and refuses one further ahead', async () => {
    const before = Date.now();
    const near = await log('u1', 1, new Date(before + 60_000).toISOString());
    expect(near.statusCode).toBe(201);
    expect(Date.parse(near.json().data.created_at)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(near.json().data.created_at)).toBeGreaterThanOrEqual(before);
    const far = await log('u1', 2, new Date(Date.now() + 10 * 60_000).toISOString());
    expect(far.statusCode).toBe(400);
    expect(far.json()).toMatchObject({ field: 'created_at', status_code: 400 });
    expect(far.json().message).toMatch(/future/);
    expect(await storedCount()).toBe(1);
  });

  it('refuses a time before 1990 and one before its post was created, storing nothing', async () => {
    const ancient = await log('u1', 1, '1989-12-31T23:59:59Z');
    expect(ancient.statusCode).toBe(400);
    expect(ancient.json()).toMatchObject({ field: 'created_at' });
    // Post 4 is an hour old: a favourite a day ago is before it.
    const early = await log('u1', 4, ago(DAY));
    expect(early.statusCode).toBe(400);
    expect(early.json()).toMatchObject({ field: 'created_at' });
    expect(early.json().message).toMatch(/before its post was created/);
    expect(await storedCount()).toBe(0);
    const counts = await t.app.inject({ url: `/api/v1/interactions/counts/${postId(4)}` });
    expect(counts.json().data.favourites_count).toBe(0);
    expect(await learnedAuthors('u1')).toEqual({});
  });

  it('refuses a malformed time or one without a time zone', async () => {
    for (const bad of ['yesterday', '2026-02-30T10:00:00Z', '2026-01-10T10:00:00']) {
      const res = await log('u1', 1, bad);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().field, bad).toBe('created_at');
    }
  });

  it('keeps the first time of an interaction logged again', async () => {
    const first = ago(20 * DAY);
    expect((await log('u1', 1, first)).statusCode).toBe(201);
    const again = await log('u1', 1, ago(2 * DAY));
    expect(again.statusCode).toBe(200);
    expect(again.json().data.created_at).toBe(first);
  });
});
