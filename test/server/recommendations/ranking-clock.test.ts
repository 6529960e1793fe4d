/**
 * The ranking's clock (docs/ranking.md): a history imported with its real times — an archive,
 * an evaluator's replay of a public data set, received a year after it happened — is scored as
 * of its own end, not a year later, where every recency has underflowed to 0, and what was
 * posted after it is left out. Once live interactions come in, it ranks at now. Real HTTP on a real database; newcomers' lists (the shipped cold start: half
 * positives, half recency at an 8-hour half-life).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';
import { privacyHarness, type PrivacyHarness } from '../privacy/privacy-test-app.js';

const HOUR = 3_600_000;
const YEAR = 365 * 24 * HOUR;

let h: PrivacyHarness;
let nowMs: number;
beforeEach(async () => {
  h = await privacyHarness();
  nowMs = Date.now();
  // A year ago: post 1 two days before the history's end, post 2 one hour before it.
  await store(
    makeStatus({ n: 1, author: 'author1', nowMs: nowMs - YEAR, ageHours: 48 }),
    makeStatus({ n: 2, author: 'author2', nowMs: nowMs - YEAR, ageHours: 1 }),
  );
});
afterEach(async () => {
  await h.close();
});

async function favourite(userId: string, n: number, atMs: number): Promise<void> {
  const response = await h.app.inject({
    method: 'POST',
    url: '/api/v1/interactions',
    headers: await h.userHeaders(userId),
    payload: { user_id: userId, post_id: postId(n), action_type: 'favorite', created_at: new Date(atMs).toISOString() },
  });
  expect(response.statusCode, response.body).toBe(201);
}

/** The history: post 1 favourited twice, post 2 once, all a year ago (received now). */
async function importHistory(): Promise<void> {
  await favourite('u1', 1, nowMs - YEAR);
  await favourite('u2', 1, nowMs - YEAR);
  await favourite('u3', 2, nowMs - YEAR);
}

async function store(...statuses: ReturnType<typeof makeStatus>[]): Promise<void> {
  const response = await h.app.inject({
    method: 'POST',
    url: '/api/v1/posts/batch',
    headers: await h.adminHeaders(),
    payload: { statuses },
  });
  expect(response.statusCode, response.body).toBe(201);
}

async function newcomerList(newcomer: string): Promise<number[]> {
  const response = await h.app.inject({ url: `/api/v1/recommendations?user_id=${newcomer}`, headers: await h.userHeaders(newcomer) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Array<{ id: string }>>().map((item) => [1, 2, 3, 4].find((n) => postId(n) === item.id)!);
}

describe("the ranking's clock", () => {
  it('scores an imported history as of its end: the post of its last hour first, though the older one has more positives', async () => {
    await importHistory();
    // As of the history's end: post 2 is an hour old (recency 0.92), post 1 two days (0.02):
    // 0.5·0.63 + 0.5·0.92 against 0.5·1 + 0.5·0.02. Scored a year later, both recencies are 0
    // and post 1's positives alone would put it first.
    expect(await newcomerList('newcomer1')).toEqual([2, 1]);
  });

  it('leaves out what was posted after the history ends: it did not exist yet', async () => {
    await importHistory();
    // Post 3 is a year old too, but a day younger than the last interaction: at the history's
    // end it is in the future. Its origin counts five favourites: were it a candidate, its
    // positives and a future post's recency of 1 would put it first.
    await store(makeStatus({ n: 3, author: 'author3', nowMs: nowMs - YEAR, ageHours: -24, favourites: 5 }));
    expect(await newcomerList('newcomer3')).toEqual([2, 1]);
  });

  it('follows live activity: once the service is live again, it ranks at now', async () => {
    await importHistory();
    await store(makeStatus({ n: 3, author: 'author3', nowMs: Date.now(), ageHours: 0.1 }));
    await favourite('u4', 3, Date.now());
    // At now, the year-old posts' recencies are 0: post 3 (1 positive, minutes old) first, then
    // by positives alone, post 1 (2) before post 2 (1).
    expect(await newcomerList('newcomer2')).toEqual([3, 1, 2]);
  });

  it('live, leaves out a post dated ahead by more than clocks disagree, and counts one within it as brand new', async () => {
    // An hour ahead (a remote instance's broken clock), and two minutes ahead; both counted popular by their origin.
    await store(
      makeStatus({ n: 3, author: 'author3', nowMs: Date.now(), ageHours: -1, favourites: 9 }),
      makeStatus({ n: 4, author: 'author4', nowMs: Date.now(), ageHours: -2 / 60, favourites: 9 }),
    );
    await favourite('u1', 1, Date.now());
    const list = await newcomerList('newcomer4');
    expect(list).not.toContain(3);
    expect(list[0]).toBe(4);
  });
});
