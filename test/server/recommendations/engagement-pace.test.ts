/**
 * Engagement at the community's pace, served (docs/ranking.md, "Engagement at the community's
 * pace"): on a feed — favourites within hours of each post — the shipped ranking counts what a
 * post drew lately, not all it ever drew, from each interaction's own time; and a restart, whose
 * pool holds the stored counters undated, dates them again from the stored interactions. Real
 * HTTP on a real database (SQLite, or PostgreSQL under its config), newcomers' lists.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';
import type { StatusInput } from '../../../src/schemas/post.schema.js';
import { privacyHarness, type PrivacyHarness } from '../privacy/privacy-test-app.js';

const HOUR = 3_600_000;
const YEAR = 365 * 24 * HOUR;

const open: PrivacyHarness[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function harness(dbPath: string): Promise<PrivacyHarness> {
  const h = await privacyHarness({ dbPath });
  open.push(h);
  return h;
}

async function newcomerList(h: PrivacyHarness, newcomer: string): Promise<number[]> {
  const response = await h.app.inject({ url: `/api/v1/recommendations?user_id=${newcomer}`, headers: await h.userHeaders(newcomer) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Array<{ id: string }>>().map((item) => [1, 2].find((n) => postId(n) === item.id)!);
}

/** Stores statuses as an import does (`POST /api/v1/posts/batch`). */
async function storeStatuses(h: PrivacyHarness, statuses: readonly StatusInput[]): Promise<void> {
  const stored = await h.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await h.adminHeaders(), payload: { statuses } });
  expect(stored.statusCode, stored.body).toBe(201);
}

interface DatedInteraction {
  user_id: string;
  post_id: string;
  action_type: string;
  created_at: string;
}

/** Brings interactions with their own times (`POST /api/v1/interactions/batch`, 500 at a time). */
async function importInteractions(h: PrivacyHarness, interactions: readonly DatedInteraction[]): Promise<void> {
  for (let i = 0; i < interactions.length; i += 500) {
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/v1/interactions/batch',
      headers: await h.adminHeaders(),
      payload: { interactions: interactions.slice(i, i + 500) },
    });
    expect(response.statusCode, response.body).toBe(201);
  }
}

/** `user` favourited post `n` at `atMs`. */
function favourite(user: string, n: number, atMs: number): DatedInteraction {
  return { user_id: user, post_id: postId(n), action_type: 'favorite', created_at: new Date(atMs).toISOString() };
}

/**
 * A year-old feed, its end at `endMs`: post 1 (ten hours before the end) drew 120 favourites in
 * its first forty minutes, post 2 (nine hours before the end) 25 in the end's last hour. The
 * 145 dated engagements are a feed's pace (median age under an hour: a 2-hour half-life).
 */
async function importFeed(h: PrivacyHarness, endMs: number): Promise<void> {
  await storeStatuses(h, [
    makeStatus({ n: 1, author: 'author1', nowMs: endMs, ageHours: 10 }),
    makeStatus({ n: 2, author: 'author2', nowMs: endMs, ageHours: 9 }),
  ]);
  await importInteractions(h, [
    ...Array.from({ length: 120 }, (_, k) => favourite(`early${k}`, 1, endMs - 10 * HOUR + (k + 1) * 20_000)),
    ...Array.from({ length: 25 }, (_, k) => favourite(`late${k}`, 2, endMs - HOUR + (k + 1) * 120_000)),
  ]);
}

describe("engagement at the community's pace", () => {
  it('ranks the post engaged with lately above the one that drew more long ago, and again after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recsvc-pace-'));
    dirs.push(dir);
    const dbPath = join(dir, 'db.sqlite');
    const first = await harness(dbPath);
    await importFeed(first, Date.now() - YEAR);
    // As of the history's end (the ranking's clock): all-time positives would put post 1 first
    // (log1p 120 against log1p 25, recencies 0.43 and 0.46 at 8 h: 0.5·1 + 0.5·0.43 against
    // 0.5·0.68 + 0.5·0.46); decayed at 2 h, post 1's favourites count about 5, post 2's 20.
    expect(await newcomerList(first, 'newcomer1')).toEqual([2, 1]);
    await first.close();
    open.splice(open.indexOf(first), 1);

    // The restart builds the pool from the stored counters (undated: at each post's creation, which
    // would put post 1 first again) and dates them from the stored interactions' own times.
    const second = await harness(dbPath);
    expect(await newcomerList(second, 'newcomer2')).toEqual([2, 1]);
  });
});

/**
 * A catalogue: six three-year-old posts by six authors, favourited over the last two years (a
 * median age at engagement of years: the pace says catalogue). Sixty people favourited both
 * post 1 and post 2; posts 3–6 drew eighty favourites each, post 2 sixty.
 */
async function importCatalogue(h: PrivacyHarness, endMs: number): Promise<void> {
  await storeStatuses(
    h,
    Array.from({ length: 6 }, (_, i) => makeStatus({ n: i + 1, author: `author${i + 1}`, nowMs: endMs, ageHours: 3 * 365 * 24 })),
  );
  const at = (k: number) => endMs - (k + 1) * 5 * 24 * HOUR;
  await importInteractions(h, [
    ...Array.from({ length: 60 }, (_, k) => [1, 2].map((n) => favourite(`both${k}`, n, at(k)))).flat(),
    ...[3, 4, 5, 6].flatMap((n) => Array.from({ length: 80 }, (_, k) => favourite(`fan${n}of${k}`, n, at(k + n)))),
    favourite('reader', 1, endMs),
  ]);
}

describe('the starting point the pace names', () => {
  it('ranks a catalogue with the collaborative signal before any fit', async () => {
    const h = await harness(join(mkdtempSync(join(tmpdir(), 'recsvc-pace-')), 'db.sqlite'));
    await importCatalogue(h, Date.now() - YEAR);
    const response = await h.app.inject({ url: '/api/v1/recommendations?user_id=reader', headers: await h.userHeaders('reader') });
    expect(response.statusCode, response.body).toBe(200);
    const items = response.json<Array<{ id: string; recommendation_metadata: { reason_code: string } }>>();
    // The shipped point (collaborative 0) would rank post 2 (sixty favourites) below posts 3–6 (eighty each).
    expect(items[0]).toMatchObject({ id: postId(2), recommendation_metadata: { reason_code: 'COLLABORATIVE' } });
    expect(items.map((item) => item.id)).not.toContain(postId(1));
  });
});

/**
 * A slow feed, its end now: posts are favourited about a day after they are posted (a median
 * age at engagement near 24 hours: a recency half-life of 72 hours). Posts 3–6 (five days old)
 * drew thirty favourites each on their second day, post 1 (a day and a half old) forty in the
 * last sixteen hours, post 2 (an hour old) five in the last half hour.
 */
async function importSlowFeed(h: PrivacyHarness, endMs: number): Promise<void> {
  await storeStatuses(h, [
    makeStatus({ n: 1, author: 'author1', nowMs: endMs, ageHours: 36 }),
    makeStatus({ n: 2, author: 'author2', nowMs: endMs, ageHours: 1 }),
    ...[3, 4, 5, 6].map((n) => makeStatus({ n, author: `author${n}`, nowMs: endMs, ageHours: 5 * 24 })),
  ]);
  await importInteractions(h, [
    ...[3, 4, 5, 6].flatMap((n) => Array.from({ length: 30 }, (_, k) => favourite(`old${n}of${k}`, n, endMs - 96 * HOUR + k * 60_000))),
    ...Array.from({ length: 40 }, (_, k) => favourite(`day${k}`, 1, endMs - 16 * HOUR + k * 12 * 60_000)),
    ...Array.from({ length: 5 }, (_, k) => favourite(`fresh${k}`, 2, endMs - 30 * 60_000 + k * 60_000)),
  ]);
}

describe('the starting point the pace names', () => {
  it('gives a slow feed the recency half-life of its pace before any fit: yesterday’s well-liked post above the hour-old one', async () => {
    const h = await harness(join(mkdtempSync(join(tmpdir(), 'recsvc-pace-')), 'db.sqlite'));
    await importSlowFeed(h, Date.now());
    const response = await h.app.inject({ url: '/api/v1/recommendations?user_id=newcomer', headers: await h.userHeaders('newcomer') });
    expect(response.statusCode, response.body).toBe(200);
    // At the shipped 8 hours post 1 (36 h old) keeps 4% of its recency and the hour-old post 2 ranks first.
    expect(
      response
        .json<Array<{ id: string }>>()
        .map((item) => item.id)
        .slice(0, 2),
    ).toEqual([postId(1), postId(2)]);
  });
});

describe('an erasure at the pace', () => {
  it('takes back what the erased interactions added when they happened, not as much again at the newest instant', async () => {
    const h = await harness(join(mkdtempSync(join(tmpdir(), 'recsvc-pace-')), 'db.sqlite'));
    const endMs = Date.now() - YEAR;
    await storeStatuses(
      h,
      [1, 2, 3].map((n) => makeStatus({ n, author: `author${n}`, nowMs: endMs, ageHours: 24 })),
    );
    await importInteractions(h, [
      // Post 3: 120 favourites in its first hour, a day before the end (the feed's pace: 2 h; decayed to ~0 by the end).
      ...Array.from({ length: 120 }, (_, k) => favourite(`first${k}`, 3, endMs - 24 * HOUR + (k + 1) * 30_000)),
      // Post 2: ten favourites ten hours before the end (decayed at 2 h: ~0.3 in all), three in the last half hour.
      ...Array.from({ length: 10 }, (_, k) => favourite(`old${k}`, 2, endMs - 10 * HOUR + k * 1_000)),
      ...Array.from({ length: 3 }, (_, k) => favourite(`new${k}`, 2, endMs - 30 * 60_000 + k * 1_000)),
      // Post 1: two in the last half hour.
      ...Array.from({ length: 2 }, (_, k) => favourite(`now${k}`, 1, endMs - 20 * 60_000 + k * 1_000)),
    ]);
    const list = async (newcomer: string): Promise<string[]> => {
      const r = await h.app.inject({ url: `/api/v1/recommendations?user_id=${newcomer}`, headers: await h.userHeaders(newcomer) });
      expect(r.statusCode, r.body).toBe(200);
      return r.json<Array<{ id: string }>>().map((item) => item.id);
    };
    expect(await list('newcomer1')).toEqual([postId(2), postId(1), postId(3)]);
    // The ten old favourites of post 2 are erased: it keeps its three recent ones (~2.6 against
    // post 1's ~1.8). Dated at the newest instant, the ten would have been taken from the recent
    // sum and left post 2 with nothing.
    for (let k = 0; k < 10; k++) {
      const erased = await h.app.inject({ method: 'DELETE', url: `/api/v1/privacy/data?user_id=old${k}`, headers: await h.adminHeaders() });
      expect(erased.statusCode, erased.body).toBe(200);
    }
    expect(await list('newcomer2')).toEqual([postId(2), postId(1), postId(3)]);
  });
});
