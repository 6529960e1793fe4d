/**
 * A page read again and again (a client refreshing, the benchmark) does only the work that
 * changed: its statuses are written to the store once and again only when they change
 * (observed in the database: a row changed behind the service's back stays as it is until the
 * status changes on the instance), and the user's recommendations are ranked once and then
 * taken further down the same ranked list, never one already shown.
 */
import { sanitizeStatusHtml } from '../../../src/mastodon/sanitize-status-html.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mayStoreStatus } from '../../../server/posts/post.service.js';
import { startMastodonInstance, type Json, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { copiedStatuses, timelinesHarness, unfollowedStatuses, type TimelinesHarness } from './timelines-test-app.js';

const HOME = '/api/v1/timelines/home';
const MARKER = '<p>changed behind the service</p>';

let instance: MastodonTestInstance;
let h: TimelinesHarness;

beforeAll(async () => {
  instance = await startMastodonInstance();
  h = await timelinesHarness();
  // Candidates: 60 statuses by authors alice does not follow (never on her home page).
  const own = unfollowedStatuses(instance);
  const copies = copiedStatuses(own, 12, { id: 'r', name: 'repeat', idDigit: '8' });
  await h.seed(copies, instance);
});

afterAll(async () => {
  await h.close();
  await instance.close();
});

afterEach(() => {
  instance.clearFaults();
});

function get(url: string, token: string) {
  return h.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, 'x-social-instance': instance.host } });
}

function serveHomePage(page: readonly Json[]): void {
  instance.clearFaults();
  instance.fault({ kind: 'status', status: 200, body: page, path: HOME });
}

/** The stored row of a status of the page (a post is its uri: the service's id is its own). */
async function row(status: Json) {
  return h.database.db
    .selectFrom('posts')
    .select(['content', 'favourites_count', 'edited_at'])
    .where('uri', '=', status.uri as string)
    .executeTakeFirstOrThrow();
}

async function markRows(statuses: readonly Json[]): Promise<void> {
  await h.database.db
    .updateTable('posts')
    .set({ content: MARKER })
    .where(
      'uri',
      'in',
      statuses.map((status) => status.uri as string),
    )
    .execute();
}

describe('storing the page', () => {
  it('writes an unchanged status once; a status with new counts or edited is written again, alone', async () => {
    const token = instance.issueToken(0);
    const page = instance
      .homeTimeline(0)
      .filter((status) => status.reblog === null && mayStoreStatus(status))
      .slice(0, 3);
    expect(page).toHaveLength(3);
    const [counted, edited, same] = page as [Json, Json, Json];
    serveHomePage(page);
    expect((await get(`${HOME}?limit=3`, token)).statusCode).toBe(200);
    // Stored sanitised to Mastodon's allow-list (src/mastodon/sanitize-status-html.ts).
    for (const status of page) expect((await row(status)).content).toBe(sanitizeStatusHtml(status.content as string));

    // Read again, unchanged: nothing is written (the rows changed behind the service stay as they are).
    await markRows(page);
    const again = await get(`${HOME}?limit=3`, token);
    expect(again.statusCode).toBe(200);
    for (const status of page) expect((await row(status)).content).toBe(MARKER);
    const real = again.json<Json[]>().filter((status) => status.is_recommendation === false);
    expect(real).toEqual(page.map((status) => ({ ...status, is_recommendation: false })));

    // One status has a favourite more, one was edited: those two are written again, the third is not.
    const editedAt = new Date(Date.parse(edited.created_at as string) + 60_000).toISOString();
    const changed = [
      { ...counted, favourites_count: (counted.favourites_count as number) + 1 },
      { ...edited, content: '<p>edited on the instance</p>', edited_at: editedAt },
      same,
    ];
    serveHomePage(changed);
    const response = await get(`${HOME}?limit=3`, token);
    expect(response.statusCode).toBe(200);
    // Written again, but the counters stay the service's own (no interaction stored: 0), never the instance's claim.
    expect(await row(counted)).toMatchObject({ content: sanitizeStatusHtml(counted.content as string), favourites_count: 0 });
    expect(await row(edited)).toMatchObject({ content: '<p>edited on the instance</p>', edited_at: editedAt });
    expect((await row(same)).content).toBe(MARKER);
    // The reply is the changed page (not a page kept from before).
    const shown = response.json<Json[]>().filter((status) => status.is_recommendation === false);
    expect(shown).toEqual(changed.map((status) => ({ ...status, is_recommendation: false })));
  });

  it('a status deleted from the store behind the service is not stored again while the page is unchanged, but is once it changes', async () => {
    const token = instance.issueToken(0);
    const [status] = instance
      .homeTimeline(0)
      .filter((item) => item.reblog === null && mayStoreStatus(item))
      .slice(3, 4);
    if (status === undefined) throw new Error('the instance has too few storable statuses');
    serveHomePage([status]);
    await get(`${HOME}?limit=1`, token);
    const { id } = await h.database.db
      .selectFrom('posts')
      .select('id')
      .where('uri', '=', status.uri as string)
      .executeTakeFirstOrThrow();
    await h.database.db.deleteFrom('post_tags').where('post_id', '=', id).execute();
    await h.database.db.deleteFrom('post_instance_ids').where('post_id', '=', id).execute();
    await h.database.db.deleteFrom('posts').where('id', '=', id).execute();
    await get(`${HOME}?limit=1`, token);
    expect(
      await h.database.db
        .selectFrom('posts')
        .select('id')
        .where('uri', '=', status.uri as string)
        .executeTakeFirst(),
    ).toBeUndefined();
    serveHomePage([{ ...status, replies_count: (status.replies_count as number) + 1 }]);
    await get(`${HOME}?limit=1`, token);
    expect((await row(status)).content).toBe(sanitizeStatusHtml(status.content as string));
  });
});

/** Sum of service_ml_model_predictions: each ranking pass adds the pool's size. */
async function predictions(): Promise<number> {
  const text = (await h.app.inject({ method: 'GET', url: '/metrics' })).body;
  let sum = 0;
  for (const match of text.matchAll(/^service_ml_model_predictions(?:_total)?(?:\{[^}]*\})? (\d+)/gm)) sum += Number(match[1]);
  return sum;
}

describe('recommendations for a page read again', () => {
  it('are ranked once for the user and taken further down the same list, never one already shown', async () => {
    const token = instance.issueToken(1);
    const read = async (): Promise<string[]> => {
      const response = await get(`${HOME}?limit=10`, token);
      expect(response.statusCode).toBe(200);
      return response
        .json<Json[]>()
        .filter((status) => status.is_recommendation === true)
        .map((status) => status.id as string);
    };
    const first = await read();
    expect(first.length).toBeGreaterThan(0);
    const ranked = await predictions();
    expect(ranked).toBeGreaterThan(0);
    const later = [await read(), await read(), await read()];
    expect(await predictions()).toBe(ranked);
    const all = [first, ...later].flat();
    expect(later.every((ids) => ids.length === first.length)).toBe(true);
    expect(new Set(all).size).toBe(all.length);
  });
});
