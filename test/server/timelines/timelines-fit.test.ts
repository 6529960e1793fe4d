/**
 * Recommendations woven only where they belong, through the real routes against the Mastodon
 * test instance: never a status of an account the reader follows into their home timeline (it
 * comes there anyway: shown twice), only the tag's statuses into a tag's timeline, only local
 * authors into `local=true` and only others into `remote=true`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMastodonInstance, type Json, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { timelinesHarness, type TimelinesHarness } from './timelines-test-app.js';

let instance: MastodonTestInstance;
let h: TimelinesHarness;

const usernameOf = (status: Json): string => (status.account as Json).username as string;
const acctOf = (status: Json): string => (status.account as Json).acct as string;

beforeAll(async () => {
  instance = await startMastodonInstance({ statuses: 120 });
  h = await timelinesHarness();
  // Candidates: every public status of the instance (followed and not, local and remote, every
  // tag), as copies it never lists (ids above its own, other uris): its own statuses it shows
  // itself further down each walk of a public or tag timeline, so those are never woven in there
  // (docs/clients.md); the copies keep their accounts and tags, which the rules here judge.
  const statuses = instance.publicTimeline().filter((status) => status.reblog === null);
  await h.seed(
    statuses.map((status, k) => ({
      ...status,
      id: `9${String(k).padStart(3, '0')}${status.id as string}`.slice(0, 24),
      uri: `${status.uri as string}-copy`,
      url: null,
    })),
    instance,
  );
});

afterAll(async () => {
  await h.close();
  await instance.close();
});

function get(url: string, token: string) {
  return h.app.inject({ url, headers: { authorization: `Bearer ${token}`, 'x-social-instance': instance.host } });
}

async function injected(url: string, token: string): Promise<Json[]> {
  const response = await get(url, token);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Json[]>().filter((status) => status.is_recommendation === true);
}

async function allRecommendations(token: string): Promise<void> {
  const userId = `${instance.accountIdOf(token) as string}@${instance.host}`;
  const response = await h.app.inject({
    method: 'PUT',
    url: '/api/v1/recommendations/preferences',
    headers: { authorization: `Bearer ${token}`, 'x-social-instance': instance.host },
    payload: { user_id: userId, recommendation_ratio: 1 },
  });
  expect(response.statusCode, response.body).toBe(200);
}

describe('recommendations woven into a timeline', () => {
  it('leave out the accounts the reader follows from their home timeline (asked of their instance)', async () => {
    const token = instance.issueToken(0);
    await allRecommendations(token);
    // Alice follows bob, carol, dave, erin, frank, grace and heidi; newsbot and ivan are left to recommend.
    const followed = ['bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi'];
    const home = await injected('/api/v1/timelines/home?limit=5', token);
    expect(home.length).toBeGreaterThan(0);
    for (const status of home) expect(followed, JSON.stringify(status.account)).not.toContain(usernameOf(status));
    expect(instance.count('/api/v1/accounts/relationships')).toBeGreaterThan(0);
    // Bob follows only alice: the same statuses of carol's may be recommended to him.
    const bob = instance.issueToken('bob');
    await allRecommendations(bob);
    const forBob = await injected('/api/v1/timelines/home?limit=5', bob);
    expect(forBob.some((status) => followed.includes(usernameOf(status)) && usernameOf(status) !== 'bob')).toBe(true);
  });

  it("weave only the tag's statuses into a tag's timeline", async () => {
    const token = instance.issueToken(2);
    await allRecommendations(token);
    let woven = 0;
    for (const tag of ['fediverse', 'photography', 'cats', 'rust', 'typescript', 'music', 'science', 'news']) {
      const tagged = await injected(`/api/v1/timelines/tag/${tag}?limit=20`, token);
      woven += tagged.length;
      for (const status of tagged) expect((status.tags as Json[]).map((item) => item.name)).toContain(tag);
    }
    expect(woven).toBeGreaterThan(0);
  });

  it('weave only local authors into local=true, and only others into remote=true', async () => {
    const token = instance.issueToken(5);
    await allRecommendations(token);
    const local = await injected('/api/v1/timelines/public?local=true&limit=10', token);
    expect(local.length).toBeGreaterThan(0);
    for (const status of local) expect(acctOf(status)).not.toContain('@');
    const remote = await injected('/api/v1/timelines/public?remote=true&limit=10', token);
    expect(remote.length).toBeGreaterThan(0);
    for (const status of remote) expect(acctOf(status)).toContain('@');
  });
});
