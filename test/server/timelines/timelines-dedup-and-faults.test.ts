/**
 * Blended timelines, two rules checked deterministically against the Mastodon test instance
 * over real HTTP and a real SQLite store:
 *
 * - An injected recommendation is never a status already on the page, by id, by uri, or by
 *   reblogged original (README, "Mastodon timelines with recommendations woven in"). Each case
 *   starts from an empty instance and an empty store holding exactly three candidates: the
 *   duplicate and two others. A 10-status page wants 3 recommendations, so without the check
 *   the duplicate would be woven in; with it, exactly the two others are.
 * - The instance failing on the timeline request itself, after the token was verified (500, too
 *   slow, a body over the cap, a 200 that is not JSON or not an array, a dropped connection):
 *   still 200, `X-Recsvc-Degraded: instance-unavailable`, a non-empty array from the store.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMastodonInstance, type Fault, type Json, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { copiedStatuses, timelinesHarness, unfollowedStatuses, type TimelinesHarness } from './timelines-test-app.js';

const HOME = '/api/v1/timelines/home';
const VERIFY = '/api/v1/accounts/verify_credentials';

function get(h: TimelinesHarness, instance: MastodonTestInstance, url: string, token: string) {
  return h.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, 'x-social-instance': instance.host } });
}

/** An account no test instance knows (so never on anyone's page there), which consents to discovery. */
function elsewhereAccount(template: Json, name: string): Json {
  return {
    ...template,
    id: `${name}-id`,
    username: name,
    acct: `${name}@elsewhere.example`,
    url: `https://elsewhere.example/@${name}`,
    uri: `https://elsewhere.example/users/${name}`,
    discoverable: true,
    indexable: true,
    note: '',
  };
}

describe('an injected recommendation is never a status already on the page', () => {
  let instance: MastodonTestInstance;
  let h: TimelinesHarness;
  /** The two candidates that are not duplicates: the page must carry exactly these. */
  let others: Json[];

  beforeEach(async () => {
    instance = await startMastodonInstance({ statuses: 0 });
    h = await timelinesHarness();
    const t0 = Date.now() - 3_600_000;
    // Alice's page: carol's statuses (alice follows carol), stored by the page itself and so
    // excluded by id as the page's own; each case adds the one status its duplicate copies.
    for (let i = 0; i < 9; i++) instance.postStatus({ account: 'carol', text: `carol on gardens ${i}`, createdMs: t0 + i * 1_000 });
    // The other candidates: newsbot's (alice does not follow it: never on her page).
    others = [0, 1].map((i) => instance.postStatus({ account: 'newsbot', text: `headline about trains ${i}`, createdMs: t0 - 60_000 + i }));
  });

  afterEach(async () => {
    await h.close();
    await instance.close();
  });

  /**
   * Alice's first home page of `limit` (a new user window: ranked now). Checks that it holds
   * `onPage`, and that the recommendations woven in are exactly the other candidates.
   */
  async function homeInjects(onPage: Json, limit = 10): Promise<{ body: Json[]; injected: Json[] }> {
    const response = await get(h, instance, `${HOME}?limit=${limit}`, instance.issueToken(0));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-recsvc-degraded']).toBeUndefined();
    const body = response.json<Json[]>();
    const real = body.filter((status) => status.is_recommendation === false);
    expect(real.length).toBe(limit);
    expect(real.map((status) => status.id)).toContain(onPage.id);
    const injected = body.filter((status) => status.is_recommendation === true);
    expect(injected.map((status) => status.id as string).sort()).toEqual(others.map((status) => status.id as string).sort());
    return { body, injected };
  }

  it('(a) by id: a stored post with the id of a page status (but another uri) is not injected', async () => {
    // Dave does not consent to discovery: his status is shown to alice but not stored, so the
    // stored post with its id (a consenting copy under another uri) stays in the store as is.
    const onPage = instance.postStatus({ account: 'dave', text: 'dave on rivers' });
    const duplicate: Json = {
      ...onPage,
      uri: 'https://elsewhere.example/users/twin/statuses/1',
      url: null,
      account: elsewhereAccount(onPage.account as Json, 'twin'),
    };
    await h.seed([duplicate, ...others], instance);
    const { body } = await homeInjects(onPage);
    expect(body.filter((status) => status.id === onPage.id)).toHaveLength(1);
  });

  it('(b) by uri: a stored post with the uri of a page status (but another id) is not injected', async () => {
    const onPage = instance.postStatus({ account: 'bob', text: 'bob on bridges' });
    // The same post as another instance knows it: its own id and account id, the same uri.
    const duplicate: Json = {
      ...onPage,
      id: `7${onPage.id as string}`,
      url: null,
      account: { ...(onPage.account as Json), id: 'bob-elsewhere-id', acct: `bob@${instance.host}` },
    };
    await h.seed([duplicate, ...others], instance);
    const { body } = await homeInjects(onPage);
    expect(body.map((status) => status.id)).not.toContain(duplicate.id);
    expect(body.filter((status) => status.uri === onPage.uri)).toHaveLength(1);
  });

  // Dave's reblog is not stored (he does not consent), so only the page's keys know the original
  // is on the page; bob's reblog is stored, and the ranking leaves its reblog group out too.
  it.each(['dave', 'bob'])(
    '(c) by reblogged original: the page holds %s’s reblog of a stored candidate, which is not injected',
    async (booster) => {
      const original = instance.postStatus({ account: 'ivan', text: 'ivan on lighthouses' });
      await h.seed([original, ...others], instance);
      const reblog = await reblogOn(instance, original.id as string, instance.issueToken(booster));
      const { body, injected } = await homeInjects(reblog);
      expect(injected.map((status) => status.id)).not.toContain(original.id);
      expect(body.filter((status) => status.id === original.id || status.uri === original.uri)).toHaveLength(0);
    },
  );

  it('(c) by reblogged original: a later page of the same ranking window holds an original whose stored reblog is next in line', async () => {
    const token = instance.issueToken(0);
    const injectedInto = async (url: string): Promise<{ real: Json[]; injected: Json[] }> => {
      const response = await get(h, instance, url, token);
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json<Json[]>();
      return {
        real: body.filter((status) => status.is_recommendation === false),
        injected: body.filter((status) => status.is_recommendation === true),
      };
    };
    const ids = (statuses: Json[]): string[] => statuses.map((status) => status.id as string).sort();
    // Bob's original, older than carol's nine: 10th on alice's home, so on her second page of 5.
    const original = instance.postStatus({ account: 'bob', text: 'bob on kites', createdMs: Date.now() - 2 * 86_400_000 });
    // Ivan (whom alice does not follow) reblogs it; his reblog is stored (with the original),
    // well liked, so that the ranking keeps it rather than the original (one per reblog group).
    const reblog = await reblogOn(instance, original.id as string, instance.issueToken('ivan'));
    await h.seed([{ ...(instance.status(reblog.id as string) as Json), favourites_count: 10 }, ...others], instance);
    // Two newer, better liked candidates (by authors of their own: each author is capped per
    // list), what the first page takes.
    const firsts = [0, 1].map((i) => {
      const status = instance.postStatus({ account: 'newsbot', text: `breaking headline ${i}` });
      return { ...status, account: elsewhereAccount(status.account as Json, `breaking${i}`), favourites_count: 20 };
    });
    await h.seed(firsts, instance);
    // Older candidates by authors the instance does not know, ranked last: they keep the
    // window's list long enough that the second page takes from it instead of ranking anew
    // (which would leave out the original's whole reblog group: RecommendationWindows).
    const old = [0, 1, 2, 3, 4].map((i) =>
      instance.postStatus({ account: 'newsbot', text: `old news ${i}`, createdMs: Date.now() - 60 * 3_600_000 + i }),
    );
    await h.seed(copiedStatuses(old, 8, { id: 'o', name: 'older', idDigit: '4' }), instance);

    // The first page opens the window: the original is not on it, so neither it nor its
    // reblog is left out of the ranked list; the page takes the two best.
    const first = await injectedInto(`${HOME}?limit=5`);
    expect(ids(first.injected)).toEqual(ids(firsts));
    expect(first.real.map((status) => status.id)).not.toContain(original.id);
    // The second page holds the original; the reblog is next in the window's list, but on the
    // page by its original: the two others come instead.
    const second = await injectedInto(`${HOME}?limit=5&max_id=${first.real.at(-1)?.id as string}`);
    expect(second.real.map((status) => status.id)).toContain(original.id);
    expect(ids(second.injected)).not.toContain(reblog.id);
    expect(ids(second.injected)).toEqual(ids(others));
  });

  it('(c) by reblogged original, across instances: a stored reblog whose original has the uri of a page status is not injected', async () => {
    const onPage = instance.postStatus({ account: 'bob', text: 'bob on tides', createdMs: Date.now() - 2 * 86_400_000 });
    // A reblog seen on another instance: its ids (of the reblog and of the original) are that
    // instance's, only the original's uri says it is the status on alice's page. Storing it
    // stores that original too (same uri: left out by uri); the reblog, newer, is the one of
    // the two the ranking picks (one post per reblog group), so only the reblog check stops it.
    const booster = elsewhereAccount(onPage.account as Json, 'booster');
    const reblog: Json = {
      ...onPage,
      id: `6${onPage.id as string}`,
      created_at: new Date().toISOString(),
      uri: 'https://elsewhere.example/users/booster/statuses/1/activity',
      url: null,
      content: '',
      tags: [],
      account: booster,
      reblog: {
        ...onPage,
        id: `5${onPage.id as string}`,
        account: { ...(onPage.account as Json), id: 'bob-elsewhere-id', acct: `bob@${instance.host}` },
      },
    };
    await h.seed([reblog, ...others], instance);
    const { body, injected } = await homeInjects(onPage);
    expect(injected.map((status) => status.id)).not.toContain(reblog.id);
    expect(body.filter((status) => status.uri === onPage.uri || (status.reblog as Json | null)?.uri === onPage.uri)).toHaveLength(1);
  });
});

/** Reblogs a status on the test instance as the token's account, over its HTTP API. */
async function reblogOn(instance: MastodonTestInstance, id: string, token: string): Promise<Json> {
  const response = await fetch(`${instance.origin}/api/v1/statuses/${id}/reblog`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  const reblog = (await response.json()) as Json;
  expect((reblog.reblog as Json).id).toBe(id);
  return reblog;
}

describe('the timeline request fails after the token was verified: 200 from the store, flagged', () => {
  /** Short instance timeouts and a small response cap, so that the faults below cost little. */
  const HEADERS_TIMEOUT_MS = 300;
  const MAX_RESPONSE_BYTES = 256 * 1024;
  let instance: MastodonTestInstance;
  let h: TimelinesHarness;
  const storedIds = new Set<string>();

  beforeAll(async () => {
    instance = await startMastodonInstance();
    h = await timelinesHarness({
      connectTimeoutMs: 300,
      headersTimeoutMs: HEADERS_TIMEOUT_MS,
      bodyTimeoutMs: 300,
      requestTimeoutMs: 1_000,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
    const own = unfollowedStatuses(instance);
    const candidates = [...own, ...copiedStatuses(own, 4, { id: 'd', name: 'degraded', idDigit: '8' })];
    await h.seed(candidates, instance);
    for (const status of candidates) storedIds.add(status.id as string);
  });

  afterAll(async () => {
    await h.close();
    await instance.close();
  });

  afterEach(() => {
    instance.clearFaults();
  });

  const FAULTS: ReadonlyArray<readonly [string, Fault]> = [
    ['HTTP 500', { kind: 'status', status: 500, path: HOME }],
    ['headers slower than the timeout', { kind: 'slow', delayMs: HEADERS_TIMEOUT_MS * 4, path: HOME }],
    ['a body over the cap, with Content-Length', { kind: 'huge', bytes: MAX_RESPONSE_BYTES * 4, declareLength: true, path: HOME }],
    ['a body over the cap, chunked', { kind: 'huge', bytes: MAX_RESPONSE_BYTES * 4, path: HOME }],
    ['a 200 whose body is not JSON', { kind: 'bad-json', path: HOME }],
    ['a 200 whose JSON is an object, not an array', { kind: 'status', status: 200, body: { error: 'not a page' }, path: HOME }],
    ['a 200 whose JSON is a string, not an array', { kind: 'status', status: 200, body: JSON.stringify('not a page'), path: HOME }],
    ['a dropped connection', { kind: 'drop', path: HOME }],
  ];

  it.each(FAULTS)('%s', async (_name, fault) => {
    const token = instance.issueToken(0);
    // Verified (and cached) by a normal page, which also stores the page's consenting statuses.
    const before = await get(h, instance, `${HOME}?limit=10`, token);
    expect(before.statusCode, before.body).toBe(200);
    expect(before.headers['x-recsvc-degraded']).toBeUndefined();
    for (const status of before.json<Json[]>()) storedIds.add(status.id as string);

    instance.fault(fault);
    const verifications = instance.count(VERIFY);
    const timelineCalls = instance.count(HOME);
    const started = performance.now();
    const response = await get(h, instance, `${HOME}?limit=10`, token);
    const elapsedMs = performance.now() - started;

    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-recsvc-degraded']).toBe('instance-unavailable');
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers.link).toBeUndefined();
    const body = response.json<unknown>();
    expect(Array.isArray(body)).toBe(true);
    const statuses = body as Json[];
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.length).toBeLessThanOrEqual(10);
    for (const status of statuses) expect(storedIds.has(status.id as string), String(status.id)).toBe(true);
    // The degradation came from the timeline request, not from the token's verification.
    expect(instance.count(VERIFY)).toBe(verifications);
    expect(instance.count(HOME)).toBeGreaterThan(timelineCalls);
    // Never a hang: within the service's whole-exchange deadline, with room to spare.
    expect(elapsedMs).toBeLessThan(2_500);
  });
});
