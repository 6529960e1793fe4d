/**
 * Sensitive statuses (issue 11, "not sensitive unless the user's preferences allow it"),
 * through the real routes against the Mastodon test instance: a sensitive status whose
 * authors consent is passed through untouched in the reader's own page and stored as a
 * candidate, but recommended (GET /api/v1/recommendations) and woven into timelines only for
 * users whose `allow_sensitive` preference is on; a reblog of a sensitive original counts as
 * sensitive even when the reblog itself is not marked; after a restart both come back from
 * the store.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { startMastodonInstance, withSocial, type Json, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { timelinesHarness, type TimelinesHarness } from './timelines-test-app.js';
import { serviceIdOf } from './timelines-test-app.js';

let instance: MastodonTestInstance;
let h: TimelinesHarness;
/** Carol's sensitive status (alice follows carol: it is on alice's home page). */
let cw: Json;
/** Carol's other statuses. */
let plain: Json[];
/** An unmarked reblog of a sensitive original, both by accounts nobody here follows. */
let sensitiveReblog: Json;

beforeAll(async () => {
  // Only the statuses posted here: the pool is small enough for one list to hold all of it.
  instance = await startMastodonInstance({ statuses: 0 });
  h = await timelinesHarness();
  const t0 = Date.now() - 3_600_000;
  // Alice's own statuses fill bob's home page (bob follows alice only).
  for (let i = 0; i < 6; i++) instance.postStatus({ account: 'alice', text: `alice at home ${i}`, createdMs: t0 + i * 1_000 });
  plain = [0, 1, 2].map((i) => instance.postStatus({ account: 'carol', text: `carol on rust ${i}`, createdMs: t0 + 10_000 + i * 1_000 }));
  cw = instance.postStatus({ account: 'carol', text: 'the ending of the film', sensitive: true, createdMs: t0 + 20_000 });
  const original: Json = {
    ...instance.postStatus({ account: 'ivan', text: 'graphic photos', sensitive: true, createdMs: t0 + 30_000 }),
    id: '7000000000000000001',
    uri: 'https://far.example/users/ivan/statuses/7000000000000000001',
    url: null,
  };
  sensitiveReblog = {
    ...original,
    id: '7000000000000000002',
    uri: 'https://booster.example/users/booster/statuses/7000000000000000002/activity',
    sensitive: false,
    spoiler_text: '',
    content: '',
    account: { ...(original.account as Json), id: 'booster-1', username: 'booster', acct: 'booster@booster.example' },
    reblog: original,
  };
  await h.seed([sensitiveReblog], instance);
});

afterAll(async () => {
  await h.close();
  await instance.close();
});

const userIdOf = (token: string): string => `${instance.accountIdOf(token) as string}@${instance.host}`;
const asUser = (token: string) => ({ authorization: `Bearer ${token}`, 'x-social-instance': instance.host });

async function homePage(token: string, limit = 40): Promise<Json[]> {
  const response = await h.app.inject({ url: `/api/v1/timelines/home?limit=${limit}`, headers: asUser(token) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Json[]>();
}

async function recommendedIds(token: string, app: FastifyInstance = h.app): Promise<string[]> {
  const response = await app.inject({ url: `/api/v1/recommendations?user_id=${userIdOf(token)}&limit=40`, headers: asUser(token) });
  expect(response.statusCode, response.body).toBe(200);
  // The recommendations endpoint names posts by the service's ids: as the instance's own, to compare with its statuses.
  const ids = response.json<Json[]>().map((status) => status.id as string);
  const local = await h.database.db
    .selectFrom('post_instance_ids')
    .select(['post_id', 'local_id'])
    .where('instance', '=', instance.host)
    .execute();
  const byService = new Map(local.map((row) => [row.post_id, row.local_id]));
  return ids.map((id) => byService.get(id) ?? id);
}

async function setPreferences(token: string, preferences: Json): Promise<Json> {
  const response = await h.app.inject({
    method: 'PUT',
    url: '/api/v1/recommendations/preferences',
    headers: asUser(token),
    payload: { user_id: userIdOf(token), ...preferences },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: Json }>().data;
}

const sensitiveIds = (): string[] => [cw.id as string, sensitiveReblog.id as string, (sensitiveReblog.reblog as Json).id as string];

describe('sensitive statuses', () => {
  it("are passed through untouched in the reader's own page and stored as candidates", async () => {
    const page = await homePage(instance.token);
    const direct = instance.homeTimeline(0).find((status) => status.id === cw.id);
    expect(direct?.sensitive).toBe(true);
    expect(page.find((status) => status.id === cw.id)).toEqual({ ...direct, is_recommendation: false });
    const id = await serviceIdOf(h.database, instance.host, cw.id as string);
    const stored = await h.app.inject({ url: `/api/v1/posts/${String(id)}` });
    expect(stored.statusCode, stored.body).toBe(200);
    expect(stored.json()).toMatchObject({ uri: cw.uri, sensitive: true, spoiler_text: 'content warning' });
  });

  it('are recommended and injected only to users who set allow_sensitive, from the change on', async () => {
    const bob = instance.issueToken('bob');
    // Every recommendation that fits goes into bob's page, so what is left out is left out by the rules.
    expect(await setPreferences(bob, { recommendation_ratio: 1 })).toMatchObject({ allow_sensitive: false });

    const before = await recommendedIds(bob);
    expect(before).toEqual(expect.arrayContaining(plain.map((status) => status.id)));
    for (const id of sensitiveIds()) expect(before).not.toContain(id);
    const injectedBefore = (await homePage(bob)).filter((status) => status.is_recommendation === true);
    expect(injectedBefore.length).toBeGreaterThan(0);
    for (const id of sensitiveIds()) expect(injectedBefore.map((status) => status.id)).not.toContain(id);

    expect(await setPreferences(bob, { allow_sensitive: true })).toMatchObject({ allow_sensitive: true, recommendation_ratio: 1 });

    const after = await recommendedIds(bob);
    expect(after).toContain(cw.id);
    // A reblog and its original count as one post: one of them.
    expect(after.filter((id) => sensitiveIds().slice(1).includes(id))).toHaveLength(1);
    const injectedAfter = (await homePage(bob)).filter((status) => status.is_recommendation === true);
    const injectedCw = injectedAfter.find((status) => status.id === cw.id);
    expect(injectedCw, JSON.stringify(injectedAfter.map((status) => status.id))).toBeDefined();
    expect(injectedCw).toMatchObject({ sensitive: true, spoiler_text: 'content warning' });

    // Another user without the preference still never gets them.
    const alice = await recommendedIds(instance.token);
    expect(alice.length).toBeGreaterThan(0);
    for (const id of sensitiveIds()) expect(alice).not.toContain(id);

    // After a restart (a new app over the same database), the pool's flags and bob's preference come back from the store.
    const restarted = await buildApp({ ...withSocial(h.social), database: h.database, rateLimit: null });
    try {
      await restarted.ready();
      expect(await recommendedIds(bob, restarted)).toContain(cw.id);
      const aliceAfterRestart = await recommendedIds(instance.token, restarted);
      expect(aliceAfterRestart.length).toBeGreaterThan(0);
      for (const id of sensitiveIds()) expect(aliceAfterRestart).not.toContain(id);
    } finally {
      await restarted.close();
    }

    // Off again: gone again.
    await setPreferences(bob, { allow_sensitive: false });
    for (const id of sensitiveIds()) expect(await recommendedIds(bob)).not.toContain(id);
  });
});
