/**
 * A user's own posts are never recommended to them (README, Ranking: "minus the user's own
 * posts"), for a caller with a Mastodon token too: their user id is `<account id>@<host>`,
 * while the statuses the timelines store from their instance carry the bare account id. Through
 * the real routes against the Mastodon test instance: alice's public statuses are stored as
 * candidates from bob's public page, then neither her recommendations nor the statuses woven
 * into her home page hold any of them (at tracking level `none` too), while bob gets them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMastodonInstance, type Json, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { timelinesHarness, type TimelinesHarness } from './timelines-test-app.js';

let instance: MastodonTestInstance;
let h: TimelinesHarness;
let aliceId: string;
let bob: string;
/** Alice's own statuses. */
let own: Json[];
/** Carol's statuses (alice follows carol): the newest, so they fill a 5-status page of alice's home. */
let carols: Json[];

/** The author by uri: the recommendations endpoint names accounts by the service's ids, a timeline by the instance's. */
const aliceUriOf = (): string => (own[0]!.account as Json).uri as string;
const authorOf = (status: Json): string => (status.account as Json).uri as string;
const userIdOf = (token: string): string => `${instance.accountIdOf(token) as string}@${instance.host}`;
const asUser = (token: string) => ({ authorization: `Bearer ${token}`, 'x-social-instance': instance.host });

beforeAll(async () => {
  instance = await startMastodonInstance({ statuses: 0 });
  h = await timelinesHarness();
  aliceId = instance.accountIdOf(instance.token) as string;
  bob = instance.issueToken('bob');
  const t0 = Date.now() - 3_600_000;
  // Ivan's (nobody here follows him) are older than alice's, which are older than carol's.
  for (let i = 0; i < 3; i++) instance.postStatus({ account: 'ivan', text: `ivan on music ${i}`, createdMs: t0 + i * 1_000 });
  own = [0, 1, 2, 3, 4, 5].map((i) =>
    instance.postStatus({ account: 'alice', text: `alice on rust ${i}`, createdMs: t0 + 10_000 + i * 1_000 }),
  );
  carols = [0, 1, 2, 3, 4].map((i) =>
    instance.postStatus({ account: 'carol', text: `carol on cats ${i}`, createdMs: t0 + 20_000 + i * 1_000 }),
  );
  // Bob reads the public timeline: every status above is stored as a candidate, alice's included.
  const response = await h.app.inject({ url: '/api/v1/timelines/public?limit=40', headers: asUser(bob) });
  expect(response.statusCode, response.body).toBe(200);
  // Stored under the service's own id for alice's account (the instance's id is a mapping to it).
  const alice = await h.database.db
    .selectFrom('account_instance_ids')
    .select('account_id')
    .where('instance', '=', instance.host)
    .where('local_id', '=', aliceId)
    .executeTakeFirstOrThrow();
  const stored = await h.app.inject({ url: `/api/v1/posts?account_id=${alice.account_id}&limit=40` });
  expect(stored.statusCode, stored.body).toBe(200);
  expect(stored.json<Json[]>().map((status) => status.uri)).toEqual(expect.arrayContaining(own.map((status) => status.uri)));
});

afterAll(async () => {
  await h.close();
  await instance.close();
});

async function recommended(token: string): Promise<Json[]> {
  const response = await h.app.inject({ url: `/api/v1/recommendations?user_id=${userIdOf(token)}&limit=40`, headers: asUser(token) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Json[]>();
}

async function injectedIntoHome(token: string, limit: number): Promise<Json[]> {
  const response = await h.app.inject({ url: `/api/v1/timelines/home?limit=${limit}`, headers: asUser(token) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Json[]>().filter((status) => status.is_recommendation === true);
}

describe("a Mastodon user's own posts", () => {
  it('are neither recommended to them nor woven into their home page, but are to another user', async () => {
    const ownIds = own.map((status) => status.uri);

    const forAlice = await recommended(instance.token);
    expect(forAlice.length).toBeGreaterThan(0);
    expect(forAlice.filter((status) => authorOf(status) === aliceUriOf()).map((status) => status.id)).toEqual([]);

    // Bob (another user of the same instance) gets them (as many as the cap per author lets in).
    const aliceForBob = (await recommended(bob)).filter((status) => authorOf(status) === aliceUriOf()).map((status) => status.uri);
    expect(aliceForBob.length).toBeGreaterThan(0);
    expect(ownIds).toEqual(expect.arrayContaining(aliceForBob));

    // Every recommendation that fits goes into alice's page; a page of 5 holds carol's statuses only, so hers are not on it.
    const ratio = await h.app.inject({
      method: 'PUT',
      url: '/api/v1/recommendations/preferences',
      headers: asUser(instance.token),
      payload: { user_id: userIdOf(instance.token), recommendation_ratio: 1 },
    });
    expect(ratio.statusCode, ratio.body).toBe(200);
    expect(
      instance
        .homeTimeline(0)
        .slice(0, 5)
        .map((status) => status.id),
    ).toEqual(carols.map((status) => status.id).reverse());
    const injected = await injectedIntoHome(instance.token, 5);
    expect(injected.length).toBeGreaterThan(0);
    expect(injected.filter((status) => authorOf(status) === aliceUriOf()).map((status) => status.id)).toEqual([]);
  });

  it('stay out of their non-personalised list at tracking level none', async () => {
    const level = await h.app.inject({
      method: 'PATCH',
      url: `/api/v1/privacy?user_id=${encodeURIComponent(userIdOf(instance.token))}`,
      headers: asUser(instance.token),
      payload: { tracking_level: 'none' },
    });
    expect(level.statusCode, level.body).toBe(200);
    const forAlice = await recommended(instance.token);
    expect(forAlice.length).toBeGreaterThan(0);
    expect(forAlice.filter((status) => authorOf(status) === aliceUriOf()).map((status) => status.id)).toEqual([]);
  });
});
