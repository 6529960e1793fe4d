/**
 * The blended timelines against the Mastodon test instance over real HTTP: blending
 * positions and the no-duplicate rule, the ratio preference, the public timeline's filters
 * (local, remote, only_media), consent filtering, Link rewriting, X-RateLimit-*
 * pass-through, degraded mode, refused tokens, and the access rule.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../../server/platform/auth/token.service.js';
import { startMastodonInstance, type Json, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { copiedStatuses, timelinesHarness, unfollowedStatuses, type TimelinesHarness } from './timelines-test-app.js';

let instance: MastodonTestInstance;
let h: TimelinesHarness;
const seeded = new Map<string, Json>();

const usernameOf = (status: Json): string => (status.account as Json).username as string;

beforeAll(async () => {
  instance = await startMastodonInstance();
  h = await timelinesHarness();
  // Candidates to recommend: ivan's and newsbot's statuses (not followed by alice: never on
  // her home page), and copies of them by 15 authors the instance does not know.
  const own = unfollowedStatuses(instance);
  const copies = copiedStatuses(own, 15, { id: 'c', name: 'copy', idDigit: '9' });
  for (const status of [...own, ...copies]) seeded.set(status.id as string, status);
  await h.seed([...own, ...copies], instance);
});

afterAll(async () => {
  await h.close();
  await instance.close();
});

afterEach(() => {
  instance.clearFaults();
});

function get(url: string, token = instance.token) {
  return h.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, 'x-social-instance': instance.host } });
}

/** Whether the instance's status (its own id) is stored: through the instance's mapping to the service's id. */
async function stored(localId: string): Promise<boolean> {
  const mapped = await h.database.db
    .selectFrom('post_instance_ids')
    .select('post_id')
    .where('instance', '=', instance.host)
    .where('local_id', '=', localId)
    .executeTakeFirst();
  if (mapped === undefined) return false;
  const response = await h.app.inject({ method: 'GET', url: `/api/v1/posts/${mapped.post_id}` });
  return response.statusCode === 200;
}

describe('blended home timeline', () => {
  it('keeps the instance page untouched and spreads recommendations through it, never first, never adjacent, never duplicates', async () => {
    const token = instance.issueToken(0);
    const response = await get('/api/v1/timelines/home?limit=20', token);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<Json[]>();
    expect(Array.isArray(body)).toBe(true);
    const direct = instance.homeTimeline(0).slice(0, 20);
    const real = body.filter((status) => status.is_recommendation === false);
    const injected = body.filter((status) => status.is_recommendation === true);
    expect(real).toEqual(direct.map((status) => ({ ...status, is_recommendation: false })));
    expect(injected.length).toBe(6);
    expect(body[0]?.is_recommendation).toBe(false);
    body.forEach((status, i) => {
      if (status.is_recommendation === true) expect(body[i + 1]?.is_recommendation ?? false).toBe(false);
    });
    const realKeys = new Set(real.flatMap((s) => [s.id, s.uri, (s.reblog as Json | null)?.id, (s.reblog as Json | null)?.uri]));
    for (const status of injected) {
      expect(realKeys.has(status.id)).toBe(false);
      expect(realKeys.has(status.uri)).toBe(false);
      expect(status.recommendation_metadata).toMatchObject({ reason_code: expect.any(String) });
      expect(status.created_at).toBe(seeded.get(status.id as string)?.created_at);
    }
    expect(new Set(body.map((s) => s.id)).size).toBe(body.length);
    expect(response.headers['x-ratelimit-limit']).toBe('300');
    expect(response.headers['x-ratelimit-remaining']).toBeDefined();
  });

  it('follows the recommendation_ratio preference set through /api/v1/recommendations/preferences', async () => {
    // (test/server/settings/timeline-ratio.test.ts sets the same value through /api/v1/settings.)
    const token = instance.issueToken(0);
    const userId = `${instance.accountIdOf(token) as string}@${instance.host}`;
    const setRatio = async (ratio: number | null): Promise<void> => {
      const response = await h.app.inject({
        method: 'PUT',
        url: '/api/v1/recommendations/preferences',
        headers: { authorization: `Bearer ${token}`, 'x-social-instance': instance.host },
        payload: { user_id: userId, recommendation_ratio: ratio },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().data.recommendation_ratio).toBe(ratio);
    };
    const page = async (): Promise<Json[]> => {
      const response = await get('/api/v1/timelines/home?limit=10', token);
      expect(response.statusCode, response.body).toBe(200);
      return response.json<Json[]>();
    };
    const injected = (body: Json[]): number => body.filter((status) => status.is_recommendation === true).length;
    await setRatio(0);
    try {
      const none = await page();
      expect(none.every((status) => status.is_recommendation === false)).toBe(true);
      expect(none.length).toBe(10);
      await setRatio(0.5);
      const half = await page();
      expect(injected(half)).toBe(5);
      expect(half.length).toBe(15);
    } finally {
      await setRatio(null);
    }
    // Back to the default 0.3.
    expect(injected(await page())).toBe(3);
  });

  it('rewrites Link to the service origin with the instance page ids', async () => {
    const response = await get('/api/v1/timelines/home?limit=5');
    const direct = instance.homeTimeline(0).slice(0, 5);
    const link = response.headers.link as string;
    expect(link).toContain(`<http://localhost/api/v1/timelines/home?limit=5&max_id=${direct[4]?.id as string}>; rel="next"`);
    expect(link).toContain(`<http://localhost/api/v1/timelines/home?limit=5&min_id=${direct[0]?.id as string}>; rel="prev"`);
    expect(link).not.toContain(instance.origin);
    const next = await get(`/api/v1/timelines/home?limit=5&max_id=${direct[4]?.id as string}`);
    const real = next.json<Json[]>().filter((s) => s.is_recommendation === false);
    expect(real.map((s) => s.id)).toEqual(
      instance
        .homeTimeline(0)
        .slice(5, 10)
        .map((s) => s.id),
    );
  });

  it('public?local=true and tag timelines pass the filters to the instance', async () => {
    const local = (await get('/api/v1/timelines/public?local=true&limit=10')).json<Json[]>();
    const expected = instance.publicTimeline({ local: true }).slice(0, 10);
    expect(local.filter((s) => s.is_recommendation === false).map((s) => s.id)).toEqual(expected.map((s) => s.id));
    const tag = await get('/api/v1/timelines/tag/cats?limit=10');
    expect(tag.statusCode).toBe(200);
    expect(
      tag
        .json<Json[]>()
        .filter((s) => s.is_recommendation === false)
        .map((s) => s.id),
    ).toEqual(
      instance
        .publicTimeline({ tag: 'cats' })
        .slice(0, 10)
        .map((s) => s.id),
    );
  });
});

describe('public timeline filters through the service', () => {
  const cases: Array<[string, { remote?: boolean; onlyMedia?: boolean }, (status: Json) => boolean]> = [
    ['remote=true', { remote: true }, (status) => String((status.account as Json).acct).includes('@')],
    ['only_media=true', { onlyMedia: true }, (status) => (status.media_attachments as unknown[]).length > 0],
    [
      'remote=true&only_media=true',
      { remote: true, onlyMedia: true },
      (status) => String((status.account as Json).acct).includes('@') && (status.media_attachments as unknown[]).length > 0,
    ],
  ];

  it.each(cases)('public?%s reaches the instance, and the page holds only what the filter lets through', async (query, filters, passes) => {
    const seen = instance.requests.length;
    const response = await get(`/api/v1/timelines/public?${query}&limit=10`);
    expect(response.statusCode, response.body).toBe(200);
    const forwarded = instance.requests.slice(seen).filter((request) => request.path === '/api/v1/timelines/public');
    expect(forwarded).toHaveLength(1);
    expect(forwarded[0]?.query.get('remote') ?? undefined).toBe(filters.remote === true ? 'true' : undefined);
    expect(forwarded[0]?.query.get('only_media') ?? undefined).toBe(filters.onlyMedia === true ? 'true' : undefined);
    expect(forwarded[0]?.query.get('local')).toBeNull();

    const real = response.json<Json[]>().filter((status) => status.is_recommendation === false);
    const expected = instance.publicTimeline(filters).slice(0, 10);
    expect(expected.length).toBeGreaterThan(0);
    expect(real.map((status) => status.id)).toEqual(expected.map((status) => status.id));
    expect(real.every(passes)).toBe(true);
    // The filter mattered: the unfiltered first page holds statuses it leaves out.
    expect(instance.publicTimeline().slice(0, 10).every(passes)).toBe(false);
    // Paging keeps the filter.
    for (const [name, value] of new URLSearchParams(query)) expect(response.headers.link).toContain(`${name}=${value}`);
  });
});

describe('consent', () => {
  it('passes non-consenting statuses through but never stores them', async () => {
    const page = instance.homeTimeline(0).slice(0, 40);
    const response = await get('/api/v1/timelines/home?limit=40');
    const ids = new Set(response.json<Json[]>().map((s) => s.id));
    let refused = 0;
    let kept = 0;
    for (const status of page) {
      expect(ids.has(status.id)).toBe(true);
      const account = status.account as Json;
      const note = String(account.note);
      // Sensitivity is the reader's preference, not the author's consent: sensitive statuses are stored too (timelines-sensitive.test.ts).
      const consents =
        status.visibility === 'public' &&
        account.discoverable !== false &&
        account.indexable !== false &&
        !/nobot|noindex/.test(note) &&
        status.reblog === null;
      if (status.reblog !== null) continue;
      if (consents) {
        expect(await stored(status.id as string), usernameOf(status)).toBe(true);
        kept++;
      } else {
        expect(await stored(status.id as string), `${usernameOf(status)} ${String(status.visibility)}`).toBe(false);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(0);
    expect(kept).toBeGreaterThan(0);
    const dave = page.find((s) => usernameOf(s) === 'dave');
    expect(dave, 'the page holds a non-discoverable author').toBeDefined();
    expect(await stored(dave?.id as string)).toBe(false);
  });

  it('never injects a non-consenting stored post, nor a sensitive one to a user who did not allow them', async () => {
    const sensitive = instance.postStatus({ account: 'ivan', text: 'spoilers', sensitive: true });
    const hidden = instance.postStatus({ account: 'newsbot', text: 'hidden' });
    await h.seed([sensitive, { ...hidden, account: { ...(hidden.account as Json), discoverable: false } }], instance);
    let injectedCount = 0;
    for (let i = 0; i < 3; i++) {
      const body = (await get('/api/v1/timelines/home?limit=40', instance.issueToken(0))).json<Json[]>();
      const injected = body.filter((s) => s.is_recommendation === true).map((s) => s.id);
      injectedCount += injected.length;
      expect(injected).not.toContain(sensitive.id);
      expect(injected).not.toContain(hidden.id);
    }
    expect(injectedCount).toBeGreaterThan(0);
  });
});

describe('failures', () => {
  it('answers from the store, marked degraded, when the instance fails', async () => {
    const token = instance.issueToken(0);
    await get('/api/v1/timelines/home?limit=1', token); // token verified and cached
    instance.fault({ kind: 'status', status: 500, path: '/api/v1/timelines/home' });
    const response = await get('/api/v1/timelines/home?limit=10', token);
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-recsvc-degraded']).toBe('instance-unavailable');
    const body = response.json<Json[]>();
    expect(body.length).toBeGreaterThan(0);
    expect(response.headers.link).toBeUndefined();
  });

  it('keeps 401 when the instance refuses the token for the timeline', async () => {
    const token = instance.issueToken(0);
    await get('/api/v1/timelines/home?limit=1', token);
    instance.fault({ kind: 'status', status: 401, path: '/api/v1/timelines/home', token });
    const response = await get('/api/v1/timelines/home', token);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ error: expect.any(String) });
  });

  it('refuses a service token (no instance token to forward) with 403 and no token with 401', async () => {
    const service = (await createToken(h.database.db, { scopes: ['read'], tier: 'authenticated', userId: 'u1', ttlSeconds: 3600 })).token;
    expect((await get('/api/v1/timelines/home', service)).statusCode).toBe(403);
    const anonymous = await h.app.inject({ method: 'GET', url: '/api/v1/timelines/home' });
    expect(anonymous.statusCode).toBe(401);
  });
});
