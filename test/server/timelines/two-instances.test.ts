/**
 * Two honest instances federating with each other, their users reading through the service
 * with masto.js: statuses of instance A recommended into the home timeline of a user of
 * instance B carry B's own ids (looked up at B through search?resolve, off the page's path) and
 * an `acct` with A's domain, so the user acts on them from B as a Mastodon client does:
 * favourite, boost, reply and the author's profile all answer (with A's ids they were 404s, or
 * another account).
 */
import { createRestAPIClient, type mastodon } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMastodonInstance, type Json, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { timelinesHarness, type TimelinesHarness } from './timelines-test-app.js';

let a: MastodonTestInstance;
let b: MastodonTestInstance;
let h: TimelinesHarness;
let base: string;

type Blended = mastodon.v1.Status & { isRecommendation?: boolean };

beforeAll(async () => {
  a = await startMastodonInstance({ seed: 21, statuses: 80 });
  b = await startMastodonInstance({ seed: 22, statuses: 30 });
  a.federate(b);
  b.federate(a);
  h = await timelinesHarness();
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const address = h.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  base = `http://127.0.0.1:${address.port}`;
  // A user of A reads A's public timeline through the service: A's statuses become candidates (A is their origin).
  const read = await h.app.inject({
    url: '/api/v1/timelines/public?limit=40',
    headers: { authorization: `Bearer ${a.token}`, 'x-social-instance': a.host },
  });
  expect(read.statusCode, read.body).toBe(200);
});

afterAll(async () => {
  await h.close();
  await a.close();
  await b.close();
});

/** The first home page of B's user through the service, read until statuses of A are woven in (their ids resolved at B meanwhile). */
async function injectedFromA(client: mastodon.rest.Client): Promise<Blended[]> {
  for (let attempt = 0; attempt < 40; attempt++) {
    const page = (await client.v1.timelines.home.list({ limit: 20 })) as Blended[];
    const fromA = page.filter((status) => status.isRecommendation === true && status.uri.startsWith(`${a.origin}/`));
    if (fromA.length > 0) return fromA;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return [];
}

describe("recommendations from another instance, in a client of the reader's instance", () => {
  it("carry the reader's instance's ids and a domain in acct, so favourite, boost, reply and the profile work there", async () => {
    const throughService = createRestAPIClient({
      url: base,
      accessToken: b.token,
      requestInit: { headers: { 'X-Social-Instance': b.host } },
    });
    const atB = createRestAPIClient({ url: b.origin, accessToken: b.token });
    const injected = await injectedFromA(throughService);
    expect(injected.length).toBeGreaterThan(0);
    for (const status of injected) {
      // B's own copy of A's status: same uri, B's id.
      const copy = b.status(status.id);
      expect(copy?.uri, status.id).toBe(status.uri);
      expect(a.statusByUri(status.uri)?.id).not.toBe(status.id);
      expect(status.account.acct).toBe(`${status.account.username}@${a.host}`);
    }
    const [first] = injected as [Blended];
    const favourited = await atB.v1.statuses.$select(first.id).favourite();
    expect(favourited).toMatchObject({ id: first.id, uri: first.uri, favourited: true });
    const boosted = await atB.v1.statuses.$select(first.id).reblog();
    expect(boosted.reblog).toMatchObject({ id: first.id, uri: first.uri });
    const replied = await atB.v1.statuses.create({ status: `@${first.account.acct} indeed`, inReplyToId: first.id });
    expect(replied.inReplyToId).toBe(first.id);
    expect(b.status(first.id)?.replies_count).toBe(1);
    // With A's id (what was served before the mapping) B's client could not reply.
    const idAtA = a.statusByUri(first.uri)?.id as string;
    await expect(atB.v1.statuses.create({ status: 'lost', inReplyToId: idAtA })).rejects.toMatchObject({ statusCode: 404 });
    const author = await atB.v1.accounts.$select(first.account.id).fetch();
    expect(author.url).toBe(first.account.url);
    expect((b.accounts as Json[]).some((account) => account.id === first.account.id)).toBe(true);
  });
});
