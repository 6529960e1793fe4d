/**
 * Trending against a hostile instance (issue 24, item 5): statuses stored from instances'
 * pages, engaged by accounts of those instances, read through GET /api/v1/posts/trending.
 * Mass-created accounts of one instance count about log2 of their number per post, and 50
 * authors of one instance take no more than the instance's share of a trending page while
 * honest posts are left.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeInstanceStatuses } from '../../../server/posts/instance-statuses.js';
import type { StatusInput } from '../../../src/schemas/post.schema.js';
import { establishUsers, insertEngagements, usersOf } from '../../helpers/engagements.js';
import { makeStatus } from '../../helpers/mastodon-fixtures.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

let next = 0;

/** A status as `host` sends it for one of its own authors, claiming `favourites` (never believed). */
function statusOf(host: string, author: string, ageHours: number, favourites = 0): StatusInput {
  next += 1;
  const base = makeStatus({ n: next, author, ageHours, favourites, reblogs: favourites });
  return {
    ...base,
    uri: `https://${host}/users/${author}/statuses/${next}`,
    account: { ...base.account, id: `${next}`, acct: author, url: `https://${host}/@${author}`, uri: `https://${host}/users/${author}` },
  };
}

/** Stores `statuses` as `host`'s page did; the service's ids, in order. */
async function pageFrom(host: string, statuses: StatusInput[]): Promise<string[]> {
  const written = await t.database.db.transaction().execute((trx) => writeInstanceStatuses(trx, host, statuses, Date.now()));
  return written.ids.map((id) => id!);
}

async function trendingIds(limit: number, offset = 0): Promise<string[]> {
  const res = await t.app.inject({ url: `/api/v1/posts/trending?limit=${limit}&offset=${offset}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ id: string }[]>().map((status) => status.id);
}

describe('trending counts distinct engagers, grouped by instance', () => {
  it('1,000 accounts of one hostile instance weigh less than 30 users of 10 honest instances', async () => {
    const [hostile] = await pageFrom('evil.example', [statusOf('evil.example', 'mallory', 1, 999_999)]);
    const [honest] = await pageFrom('honest0.example', [statusOf('honest0.example', 'alice', 3)]);
    const [local] = await pageFrom('honest1.example', [statusOf('honest1.example', 'bob', 1)]);
    const honestUsers = Array.from({ length: 10 }, (_, i) => usersOf(`honest${i}.example`, 3)).flat();
    // Every account here is established (new accounts are discounted: below), so only the grouping by instance differs.
    await establishUsers(t.database.db, [...usersOf('evil.example', 1000), ...honestUsers, 'api1', 'api2', 'api3', 'api4', 'api5'], local!);
    await insertEngagements(t.database.db, [
      // log2(1 + 1000) · 2^(−1/12) ≈ 9.41
      { postId: hostile!, userIds: usersOf('evil.example', 1000) },
      // 10 · log2(1 + 3) · 2^(−3/12) ≈ 16.8
      { postId: honest!, userIds: honestUsers },
      // Five API users, each counted plainly: 5 · 2^(−1/12) ≈ 4.72
      { postId: local!, userIds: ['api1', 'api2', 'api3', 'api4', 'api5'] },
    ]);
    expect(await trendingIds(20)).toEqual([honest, hostile, local]);
  });

  it('counts a user once per action, and a reblog as two favourites', async () => {
    const [a, b] = await pageFrom('honest0.example', [statusOf('honest0.example', 'alice', 1), statusOf('honest0.example', 'carol', 1)]);
    await establishUsers(t.database.db, [...usersOf('one.example', 7), '7@two.example', '8@three.example'], b!);
    // a: 7 favouriting users of one instance = log2(1 + 7) = 3; b: one reblogging user of each of 2 instances = 2 · 2 = 4.
    await insertEngagements(t.database.db, [
      { postId: a!, userIds: usersOf('one.example', 7) },
      { postId: b!, userIds: ['7@two.example', '8@three.example'], action: 'reblog' },
      // Bookmarks are not engagement anyone else sees: they never make a post trend.
      { postId: a!, userIds: usersOf('one.example', 50, 100), action: 'bookmark' },
    ]);
    expect(await trendingIds(20)).toEqual([b, a]);
  });
});

describe('trending keeps its pages diverse across instances and authors', () => {
  it('50 attacker authors of one instance take at most a quarter of each page while honest posts are left', async () => {
    const attackers = await pageFrom(
      'evil.example',
      Array.from({ length: 200 }, (_, i) => statusOf('evil.example', `evil${i % 50}`, 0.5, 999_999)),
    );
    const honest: string[] = [];
    for (let i = 0; i < 30; i += 1) {
      const host = `honest${i % 10}.example`;
      honest.push(...(await pageFrom(host, [statusOf(host, `writer${i}`, 6)])));
    }
    await insertEngagements(t.database.db, [
      // Every attacker post favourited and reblogged by 20 of the attacker's accounts: 3 · log2(21) ≈ 13.2, fresher than any honest post.
      ...attackers.flatMap((postId) => [
        { postId, userIds: usersOf('evil.example', 20) },
        { postId, userIds: usersOf('evil.example', 20), action: 'reblog' as const },
      ]),
      // Every honest post favourited by one user of two other instances: 2 · 2^(−6/12) ≈ 1.41.
      ...honest.map((postId, i) => ({ postId, userIds: [`1@honest${(i + 1) % 10}.example`, `2@honest${(i + 2) % 10}.example`] })),
    ]);
    const attackerIds = new Set(attackers);
    const authorOf = new Map(attackers.map((id, i) => [id, i % 50]));

    const first = await trendingIds(20);
    const firstAttackers = first.filter((id) => attackerIds.has(id));
    expect(firstAttackers).toHaveLength(5);
    expect(new Set(firstAttackers.map((id) => authorOf.get(id))).size).toBe(5);
    const second = await trendingIds(20, 20);
    expect(second.filter((id) => attackerIds.has(id))).toHaveLength(5);
    // Every honest post is on the first two pages.
    expect([...first, ...second].filter((id) => !attackerIds.has(id)).sort()).toEqual([...honest].sort());
    // Once the honest posts are listed, the attacker's fill the rest of the snapshot: shares never empty a list.
    expect(await trendingIds(40, 40)).toHaveLength(40);
  });
});

describe('trending discounts new accounts (src/ranking/trending.ts, accountAgeWeight)', () => {
  // Hostile: 100 accounts made for the purpose, 10 on each of 10 instances, all first seen in the burst.
  // Without the discount: 10 · log2(1 + 10) ≈ 34.6; with it each counts 0.1: 10 · log2(1 + 1) = 10.
  // Organic: 3 established accounts on each of 8 instances: 8 · log2(1 + 3) = 16. Same age for both posts.
  const burst = Array.from({ length: 10 }, (_, i) => usersOf(`fresh${i}.example`, 10)).flat();
  const organicUsers = Array.from({ length: 8 }, (_, i) => usersOf(`organic${i}.example`, 3, 500)).flat();

  it('a burst of fresh accounts favouriting one status does not outrank organic engagement of established accounts (first seen long ago)', async () => {
    const [gamed] = await pageFrom('evil.example', [statusOf('evil.example', 'mallory', 1)]);
    const [organic] = await pageFrom('honest0.example', [statusOf('honest0.example', 'alice', 1)]);
    await establishUsers(t.database.db, organicUsers, organic!);
    await insertEngagements(t.database.db, [
      { postId: gamed!, userIds: burst },
      { postId: organic!, userIds: organicUsers },
    ]);
    expect(await trendingIds(20)).toEqual([organic, gamed]);
  });

  it("takes an account's age from its stored created_at where the service has the account, even when first seen today", async () => {
    const [gamed] = await pageFrom('evil.example', [statusOf('evil.example', 'mallory', 1)]);
    const [organic] = await pageFrom('honest0.example', [statusOf('honest0.example', 'alice', 1)]);
    // Each organic engager's account, stored from its own instance's page (account_instance_ids: instance, its id), created two years ago.
    for (const userId of organicUsers) {
      const [localId, host] = userId.split('@') as [string, string];
      const status = statusOf(host, `user${localId}`, 48);
      await pageFrom(host, [
        { ...status, account: { ...status.account, id: localId, created_at: new Date(Date.now() - 730 * 86_400_000).toISOString() } },
      ]);
    }
    // The burst's accounts claim nothing and were never seen before: first seen now.
    await insertEngagements(t.database.db, [
      { postId: gamed!, userIds: burst },
      { postId: organic!, userIds: organicUsers },
    ]);
    expect(await trendingIds(20)).toEqual([organic, gamed]);
  });
});
