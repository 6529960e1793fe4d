/**
 * The candidate pool under an imported history (docs/ranking.md, "The ranking's clock"): an
 * evaluator stores a whole catalogue first, then replays the interactions before its cutoff with
 * their real times. The posts created after the history's end took the pool's newest places
 * though no list may hold them yet; after the import (the fit's trigger runs the
 * candidate_pool_refresh agent) the pool is built again as of the history's end. Real HTTP on a
 * real database, a pool of the 30 newest posts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CacheLimits } from '../../../server/config.js';
import { DEFAULT_CANDIDATE_INDEX_OPTIONS } from '../../../src/ranking/index.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

const DAY = 24 * 3_600_000;
const YEAR = 365 * DAY;
const SMALL_POOL = { index: { ...DEFAULT_CANDIDATE_INDEX_OPTIONS, maxRecent: 30, maxPopular: 0 } } as unknown as Partial<CacheLimits>;

let t: TestApp;
let nowMs: number;
beforeEach(async () => {
  t = await createTestApp({ caches: SMALL_POOL });
  nowMs = Date.now();
});
afterEach(async () => {
  await t.close();
});

/** Day d of the catalogue (a year ago): 50 days, one post a day; the history ends on day 30. */
const dayMs = (d: number) => nowMs - YEAR + d * DAY;

async function storeCatalogue(): Promise<void> {
  const statuses = Array.from({ length: 50 }, (_, d) =>
    makeStatus({ n: d + 1, author: `author${d % 10}`, nowMs: dayMs(d), ageHours: 0, text: `catalogue item ${d}` }),
  );
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await t.adminHeaders(), payload: { statuses } });
  expect(res.statusCode, res.body).toBe(201);
}

/** Favourites on the posts of days 0–9 (the catalogue's classics), dated days 20–30. */
async function importHistory(): Promise<void> {
  const interactions = [];
  for (let u = 0; u < 12; u++)
    for (let d = 0; d < 10; d += 1 + (u % 3))
      interactions.push({
        user_id: `reader${u}`,
        post_id: postId(d + 1),
        action_type: 'favorite',
        created_at: new Date(dayMs(20 + ((u + d) % 10) + 0.5)).toISOString(),
      });
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/interactions/batch',
    headers: await t.adminHeaders(),
    payload: { interactions },
  });
  expect(res.statusCode).toBe(201);
}

async function refreshSummary(): Promise<string> {
  const outcome = await t.app.agentRunner.runNow('candidate_pool_refresh');
  expect(outcome.status, outcome.error).toBe('success');
  return outcome.report?.summary ?? '';
}

async function newcomerList(): Promise<string[]> {
  const res = await t.app.inject({ url: '/api/v1/recommendations?user_id=newcomer&limit=20', headers: await t.userHeaders('newcomer') });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Array<{ id: string }>>().map((item) => item.id);
}

describe('the candidate pool under an imported history', () => {
  it('is built again as of the history’s end: the catalogue’s classics come back to newcomers', async () => {
    await storeCatalogue();
    await importHistory();
    const classics = Array.from({ length: 10 }, (_, d) => postId(d + 1));
    // The pool holds days 20–49: the classics are outside it, and days 31–49 are after the history.
    expect((await newcomerList()).filter((id) => classics.includes(id))).toEqual([]);
    expect(await refreshSummary()).toContain("built again as of the imported history's end");
    const list = await newcomerList();
    expect(list.filter((id) => classics.includes(id)).length).toBe(10);
    // Nothing created after the history's end is listed.
    for (const id of list) expect(Number(BigInt(id) - BigInt(postId(0)))).toBeLessThanOrEqual(31);
    // Once built as of the end, the next refresh is an ordinary one, even with a post stored since
    // (created now, after the history: pooled as it comes, no second rebuild).
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/posts/batch',
      headers: await t.adminHeaders(),
      payload: { statuses: [makeStatus({ n: 60, author: 'author1', ageHours: 1 })] },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(await refreshSummary()).not.toContain('built again');
  });

  it('is left as it is for a live history', async () => {
    await storeCatalogue();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/interactions',
      headers: await t.userHeaders('reader1'),
      payload: { user_id: 'reader1', post_id: postId(50), action_type: 'favorite' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(await refreshSummary()).not.toContain('built again');
  });
});
