/**
 * A newcomer's list (no history: the shipped cold start) over real HTTP on a real database:
 * it follows how many positive interactions each post drew, each counted once, bookmarks
 * included (a reblog counting twice and a bookmark not at all was the ranking's engagement,
 * which the cold start read before); a post nobody engaged with comes last. An erasure, and a
 * level lowered to `none`, take the user's positives back from the counts and the list.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';
import { privacyHarness, type PrivacyHarness } from '../privacy/privacy-test-app.js';

let h: PrivacyHarness;
beforeEach(async () => {
  h = await privacyHarness();
  // Four posts of one age by four authors (no diversity rule applies), nothing counted yet.
  const statuses = [1, 2, 3, 4].map((n) => makeStatus({ n, author: `author${n}`, ageHours: 2 }));
  const stored = await h.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await h.adminHeaders(), payload: { statuses } });
  expect(stored.statusCode).toBe(201);
});
afterEach(async () => {
  await h.close();
});

async function interact(userId: string, n: number, action: string): Promise<void> {
  const response = await h.app.inject({
    method: 'POST',
    url: '/api/v1/interactions',
    headers: await h.userHeaders(userId),
    payload: { user_id: userId, post_id: postId(n), action_type: action },
  });
  expect(response.statusCode, response.body).toBe(201);
}

/** A newcomer's list, as post numbers (each newcomer asks once: no cached list between). */
async function newcomerList(newcomer: string): Promise<number[]> {
  const response = await h.app.inject({ url: `/api/v1/recommendations?user_id=${newcomer}`, headers: await h.userHeaders(newcomer) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Array<{ id: string }>>().map((item) => [1, 2, 3, 4].find((n) => postId(n) === item.id)!);
}

async function counts(n: number): Promise<{ favourites_count: number; reblogs_count: number; bookmarks_count: number }> {
  const response = await h.app.inject({ url: `/api/v1/interactions/counts/${postId(n)}` });
  expect(response.statusCode).toBe(200);
  return response.json().data;
}

/**
 * Post 1: bookmarked by three users (3 positives; the weighted engagement 0). Post 2: reblogged
 * by two (2 positives; weighted 4). Post 3: favourited by one (1). Post 4: nothing.
 */
async function engage(): Promise<void> {
  for (const user of ['b1', 'b2', 'b3']) await interact(user, 1, 'bookmark');
  for (const user of ['r1', 'r2']) await interact(user, 2, 'reblog');
  await interact('f1', 3, 'favorite');
}

describe("a newcomer's list", () => {
  it('follows the distinct positives, bookmarks included; a post without any comes last', async () => {
    await engage();
    expect(await counts(1)).toMatchObject({ favourites_count: 0, reblogs_count: 0, bookmarks_count: 3 });
    // By the weighted engagement it would be 2 (4), 3 (1), then 1 and 4 (0) by recency alone.
    expect(await newcomerList('newcomer1')).toEqual([1, 2, 3, 4]);
  });

  it('no longer counts an erased user, nor one who lowered their level to none', async () => {
    await engage();
    // Two of the three bookmarks go: b1 erases everything, b2 turns tracking off.
    const erased = await h.app.inject({ method: 'DELETE', url: '/api/v1/privacy/data', headers: await h.userHeaders('b1') });
    expect(erased.statusCode, erased.body).toBe(200);
    const lowered = await h.app.inject({
      method: 'PATCH',
      url: '/api/v1/privacy',
      headers: await h.userHeaders('b2'),
      payload: { tracking_level: 'none' },
    });
    expect(lowered.statusCode, lowered.body).toBe(200);
    expect(await counts(1)).toMatchObject({ bookmarks_count: 1 });
    // Post 1 now has 1 positive, as post 3 (the newer of the two first: post 3), below post 2's 2.
    expect(await newcomerList('newcomer2')).toEqual([2, 3, 1, 4]);
    // The reblogs are someone else's: untouched. Erasing again (b1's tokens are gone: an admin) takes nothing more back.
    expect(await counts(2)).toMatchObject({ reblogs_count: 2 });
    const again = await h.app.inject({ method: 'DELETE', url: '/api/v1/privacy/data?user_id=b1', headers: await h.adminHeaders() });
    expect(again.statusCode, again.body).toBe(200);
    expect(await counts(1)).toMatchObject({ bookmarks_count: 1 });
  });
});
