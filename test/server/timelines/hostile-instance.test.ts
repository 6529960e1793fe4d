/**
 * A hostile instance (a Mastodon account on an instance its owner runs: nothing else) against
 * the shared store, over real HTTP through the timelines: its pages reuse another instance's
 * status ids, claim another instance's statuses with script-laden content, a renamed author and
 * inflated counters, and answer thousands of statuses for a page of 20. Each rule of
 * decisions.md ("A post is its ActivityPub uri") must hold: identity by uri, the origin's word
 * only, sanitised HTML, the service's own counters, bounds per page and per instance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMastodonInstance, type Json, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { timelinesHarness, type TimelinesHarness } from './timelines-test-app.js';

let honest: MastodonTestInstance;
let hostile: MastodonTestInstance;
let h: TimelinesHarness;
/** A public, consenting status of the honest instance, stored from its public timeline. */
let victim: Json;

const HOME = '/api/v1/timelines/home';

function read(instance: MastodonTestInstance, url: string, token = instance.token) {
  return h.app.inject({ url, headers: { authorization: `Bearer ${token}`, 'x-social-instance': instance.host } });
}

async function storedByUri(uri: string) {
  return h.database.db
    .selectFrom('posts')
    .innerJoin('accounts', 'accounts.id', 'posts.account_id')
    .select(['posts.id', 'posts.content', 'posts.favourites_count', 'posts.source_instance', 'accounts.display_name', 'accounts.acct'])
    .where('posts.uri', '=', uri)
    .executeTakeFirst();
}

async function postCount(): Promise<number> {
  const row = await h.database.db
    .selectFrom('posts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A status as the hostile instance serves it: its own uri and account unless overridden. */
function hostileStatus(n: number, overrides: Json = {}): Json {
  const base = hostile.publicTimeline()[0] as Json;
  return {
    ...base,
    id: `${900000 + n}`,
    uri: `${hostile.origin}/users/mallory/statuses/${n}`,
    url: `${hostile.origin}/@mallory/${n}`,
    content: `<p>hostile ${n}</p>`,
    reblog: null,
    account: {
      ...(base.account as Json),
      id: `77${n % 50}`,
      username: `mallory${n % 50}`,
      acct: `mallory${n % 50}`,
      uri: `${hostile.origin}/users/mallory${n % 50}`,
      url: `${hostile.origin}/@mallory${n % 50}`,
      discoverable: true,
      indexable: true,
      note: '',
    },
    visibility: 'public',
    sensitive: false,
    spoiler_text: '',
    ...overrides,
  };
}

beforeAll(async () => {
  honest = await startMastodonInstance({ seed: 3 });
  hostile = await startMastodonInstance({ seed: 4 });
  h = await timelinesHarness();
  const page = await read(honest, '/api/v1/timelines/public?limit=40');
  expect(page.statusCode, page.body).toBe(200);
  // A status of the honest instance's own, stored from its page.
  const stored = await h.database.db
    .selectFrom('posts')
    .select('uri')
    .where('origin_host', '=', honest.host)
    .where('reblog_of_id', 'is', null)
    .executeTakeFirstOrThrow();
  victim = page.json<Json[]>().find((status) => status.uri === stored.uri) as Json;
  expect(await storedByUri(victim.uri as string)).toBeDefined();
});

afterAll(async () => {
  await h.close();
  await honest.close();
  await hostile.close();
});

describe('a hostile instance', () => {
  it("cannot overwrite another instance's post by reusing its id, nor by claiming its uri", async () => {
    const before = await storedByUri(victim.uri as string);
    const reusedId = hostileStatus(1, { id: victim.id, content: '<p>same id, my uri</p>' });
    const claimed = hostileStatus(2, {
      id: '123456',
      uri: victim.uri,
      content: '<p>owned</p><script>alert(1)</script>',
      favourites_count: 999_999,
      account: { ...(victim.account as Json), id: '777', display_name: 'Renamed by mallory' },
    });
    hostile.fault({ kind: 'status', status: 200, body: [reusedId, claimed], path: HOME });
    expect((await read(hostile, `${HOME}?limit=20`)).statusCode).toBe(200);
    hostile.clearFaults();

    // The claimed uri is still the honest instance's post, word for word, with the service's own counters.
    expect(await storedByUri(victim.uri as string)).toEqual(before);
    expect(before?.favourites_count).toBe(0);
    // The reused id made a post of its own (the hostile instance's uri), not a change to the victim.
    const own = await storedByUri(reusedId.uri as string);
    expect(own?.id).not.toBe(before?.id);
    expect(own?.source_instance).toBe(hostile.host);
    // The hostile instance's id for the victim's uri is only its mapping.
    const mapped = await h.database.db
      .selectFrom('post_instance_ids')
      .select('post_id')
      .where('instance', '=', hostile.host)
      .where('local_id', '=', '123456')
      .executeTakeFirst();
    expect(mapped?.post_id).toBe(before?.id);
  });

  it('has its own statuses stored sanitised, with domains in acct', async () => {
    const dirty = hostileStatus(3, {
      content:
        '<p>hi <a href="javascript:alert(1)">x</a><img src=x onerror=alert(1)><iframe src="https://evil.example"></iframe><script>steal()</script></p>',
    });
    hostile.fault({ kind: 'status', status: 200, body: [dirty], path: HOME });
    expect((await read(hostile, `${HOME}?limit=20`)).statusCode).toBe(200);
    hostile.clearFaults();
    const stored = await storedByUri(dirty.uri as string);
    expect(stored).toBeDefined();
    for (const bad of ['<script', 'onerror', '<iframe', 'javascript:', '<img']) expect(stored?.content).not.toContain(bad);
    expect(stored?.content).toContain('hi');
    expect(stored?.acct).toBe(`mallory3@${hostile.host}`);
  });

  it('stores at most a page of statuses however many it answers', async () => {
    const before = await postCount();
    // As many as fit the largest response read (RECSVC_INSTANCE_MAX_RESPONSE_BYTES: a larger page is refused whole).
    const flood = Array.from({ length: 400 }, (_, i) => hostileStatus(10_000 + i));
    hostile.fault({ kind: 'status', status: 200, body: flood, path: HOME });
    expect((await read(hostile, `${HOME}?limit=20`)).statusCode).toBe(200);
    hostile.clearFaults();
    expect((await postCount()) - before).toBe(20);
  });

  it("keeps other users' recommendations from being taken over by its authors", async () => {
    // Its pages added 20 + 3 posts by up to 50 authors; honest users' lists hold at most the author cap of each.
    const response = await h.app.inject({
      url: `/api/v1/recommendations?user_id=${encodeURIComponent(`${honest.accountIdOf(honest.token) as string}@${honest.host}`)}&limit=40`,
      headers: { authorization: `Bearer ${honest.token}`, 'x-social-instance': honest.host },
    });
    expect(response.statusCode, response.body).toBe(200);
    const list = response.json<Json[]>();
    const hostileOnes = list.filter((status) => ((status.account as Json).acct as string).endsWith(`@${hostile.host}`));
    expect(list.length).toBeGreaterThan(0);
    // Posts are its share of the list at most (src/ranking/source-shares.ts applies to the pool).
    expect(hostileOnes.length).toBeLessThan(list.length);
  });
});
