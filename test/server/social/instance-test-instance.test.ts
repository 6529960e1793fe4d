/**
 * The test instance (test/helpers/mastodon-instance.ts) behaves like Mastodon where the
 * service's tests rely on it: paging and Link headers, filters, actions, OAuth, faults.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMastodonInstance, type Json, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';

let instance: MastodonTestInstance;

beforeAll(async () => {
  instance = await startMastodonInstance();
});

afterAll(async () => {
  await instance.close();
});

/** GET with alice's token by default, or `token`, or none when null. */
async function get(path: string, token: string | null = instance.token): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await fetch(path.startsWith('http') ? path : `${instance.origin}${path}`, {
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
    redirect: 'manual',
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown), headers: response.headers };
}

async function post(
  path: string,
  body: Record<string, unknown> | URLSearchParams,
  token?: string,
): Promise<{ status: number; body: Json }> {
  const form = body instanceof URLSearchParams;
  const response = await fetch(`${instance.origin}${path}`, {
    method: 'POST',
    headers: {
      'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: form ? body.toString() : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

function links(headers: Headers): Record<string, string> {
  const result: Record<string, string> = {};
  for (const part of (headers.get('link') ?? '').split(', ')) {
    const match = /^<([^>]+)>; rel="(\w+)"$/.exec(part);
    if (match?.[1] && match[2]) result[match[2]] = match[1];
  }
  return result;
}

const ids = (body: unknown): string[] => (body as Json[]).map((status) => status.id as string);

describe('timelines and paging', () => {
  it('walks the home timeline to its end through next links, newest first, no repeats', async () => {
    const seen: string[] = [];
    let url: string | undefined = '/api/v1/timelines/home?limit=7';
    let pages = 0;
    while (url) {
      const page = await get(url);
      expect(page.status).toBe(200);
      seen.push(...ids(page.body));
      const next = links(page.headers).next;
      if (next) expect(next.startsWith(`${instance.origin}/api/v1/timelines/home?limit=7&max_id=`)).toBe(true);
      url = next;
      pages += 1;
    }
    const expected = instance.homeTimeline().map((status) => status.id as string);
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(seen.length);
    expect(pages).toBe(Math.floor(expected.length / 7) + 1);
    expect(expected.length).toBeGreaterThan(40);
  });

  it('has snowflake-like string ids, and Mastodon 4.5 statuses and accounts', async () => {
    const page = await get('/api/v1/timelines/home?limit=40');
    const statuses = page.body as Json[];
    for (const status of statuses) {
      expect(status.id).toMatch(/^\d{17,19}$/);
      expect(BigInt(status.id as string) >> 16n).toBe(BigInt(Date.parse(status.created_at as string)));
      expect(Object.keys(status)).toEqual(
        expect.arrayContaining([
          'uri',
          'url',
          'content',
          'visibility',
          'sensitive',
          'spoiler_text',
          'media_attachments',
          'mentions',
          'tags',
          'emojis',
        ]),
      );
      expect(status).toMatchObject({
        quotes_count: expect.any(Number) as unknown,
        quote_approval: expect.any(Object) as unknown,
        filtered: [],
      });
      const account = status.account as Json;
      expect(Object.keys(account)).toEqual(
        expect.arrayContaining(['discoverable', 'indexable', 'note', 'roles', 'noindex', 'fields', 'emojis']),
      );
    }
    expect(statuses.some((status) => status.reblog !== null)).toBe(true);
    expect(statuses.some((status) => (status.media_attachments as unknown[]).length > 0)).toBe(true);
    expect(page.headers.get('x-ratelimit-limit')).toBe('300');
  });

  it('since_id gives the newest above it, min_id the ones just above it, and prev walks up', async () => {
    const all = instance.homeTimeline().map((status) => status.id as string);
    const pivot = all[30] as string;
    expect(ids((await get(`/api/v1/timelines/home?since_id=${pivot}&limit=5`)).body)).toEqual(all.slice(0, 5));
    expect(ids((await get(`/api/v1/timelines/home?min_id=${pivot}&limit=5`)).body)).toEqual(all.slice(25, 30));
    const page = await get(`/api/v1/timelines/home?max_id=${pivot}&limit=5`);
    expect(ids(page.body)).toEqual(all.slice(31, 36));
    const prev = links(page.headers).prev as string;
    expect(prev).toBe(`${instance.origin}/api/v1/timelines/home?limit=5&min_id=${all[31]}`);
    expect(ids((await get(prev)).body)).toEqual(all.slice(26, 31));
  });

  it('clamps limit to 1..40 (default 20) and omits Link on an empty page', async () => {
    expect(ids((await get('/api/v1/timelines/home')).body)).toHaveLength(20);
    expect(ids((await get('/api/v1/timelines/home?limit=100')).body)).toHaveLength(40);
    expect(ids((await get('/api/v1/timelines/home?limit=0')).body)).toHaveLength(1);
    const newest = instance.homeTimeline()[0]?.id as string;
    const empty = await get(`/api/v1/timelines/home?min_id=${newest}`);
    expect(empty.body).toEqual([]);
    expect(empty.headers.get('link')).toBeNull();
  });

  it('a new post shows up above the old top through min_id', async () => {
    const top = instance.homeTimeline()[0]?.id as string;
    const fresh = instance.postStatus({ account: 'bob', text: 'hello again', tags: ['cats'] });
    expect(ids((await get(`/api/v1/timelines/home?min_id=${top}`)).body)).toEqual([fresh.id]);
    expect(ids((await get('/api/v1/timelines/tag/Cats?limit=1')).body)).toEqual([fresh.id]);
  });

  it('public timeline: public originals only, local/remote/only_media filters kept in the links', async () => {
    const everything = ids((await get('/api/v1/timelines/public?limit=40', null)).body);
    const publicIds = instance.publicTimeline().map((status) => status.id as string);
    expect(everything).toEqual(publicIds.slice(0, 40));
    const local = await get('/api/v1/timelines/public?local=true&limit=40');
    for (const status of local.body as Json[]) {
      expect((status.account as Json).acct).not.toContain('@');
      expect(status.visibility).toBe('public');
      expect(status.reblog).toBeNull();
    }
    expect(links(local.headers).prev).toContain('local=true');
    const remote = (await get('/api/v1/timelines/public?remote=true&limit=40')).body as Json[];
    expect(remote.length).toBeGreaterThan(0);
    for (const status of remote) expect((status.account as Json).acct).toContain('@');
    const media = (await get('/api/v1/timelines/public?only_media=true&limit=40')).body as Json[];
    expect(media.length).toBeGreaterThan(0);
    for (const status of media) expect((status.media_attachments as unknown[]).length).toBeGreaterThan(0);
  });

  it('home needs a valid token', async () => {
    expect((await get('/api/v1/timelines/home', null)).status).toBe(401);
    const refused = await get('/api/v1/timelines/home', 'nope');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('invalid_token');
  });
});

describe('statuses and actions', () => {
  it('favourite, bookmark and reblog change what the viewer sees, and undo restores it', async () => {
    const target = instance.publicTimeline().find((status) => status.reblog === null && status.favourited === false) as Json;
    const id = target.id as string;
    const count = target.favourites_count as number;
    const faved = await post(`/api/v1/statuses/${id}/favourite`, {}, instance.token);
    expect(faved.body).toMatchObject({ id, favourited: true, favourites_count: count + 1 });
    expect((await post(`/api/v1/statuses/${id}/bookmark`, {}, instance.token)).body).toMatchObject({ bookmarked: true });
    const reblog = await post(`/api/v1/statuses/${id}/reblog`, {}, instance.token);
    expect(reblog.body).toMatchObject({ reblog: { id, reblogged: true } });
    expect(reblog.body.id).not.toBe(id);
    expect((await get(`/api/v1/statuses/${id}`)).body).toMatchObject({ favourited: true, bookmarked: true, reblogged: true });
    await post(`/api/v1/statuses/${id}/unfavourite`, {}, instance.token);
    await post(`/api/v1/statuses/${id}/unbookmark`, {}, instance.token);
    expect((await post(`/api/v1/statuses/${id}/unreblog`, {}, instance.token)).body).toMatchObject({ reblogged: false });
    expect((await get(`/api/v1/statuses/${id}`)).body).toMatchObject({
      favourited: false,
      bookmarked: false,
      reblogged: false,
      favourites_count: count,
    });
    expect((await get(`/api/v1/statuses/${reblog.body.id as string}`)).status).toBe(404);
  });

  it('a read-only token may not act, and unknown statuses are 404', async () => {
    const readOnly = instance.issueToken(0, 'read');
    const id = instance.publicTimeline()[0]?.id as string;
    expect((await post(`/api/v1/statuses/${id}/favourite`, {}, readOnly)).status).toBe(403);
    expect((await get('/api/v1/statuses/12345')).status).toBe(404);
  });
});

describe('OAuth and instance metadata', () => {
  it('registers an app, authorizes with PKCE S256, and the token verifies', async () => {
    const app = await post(
      '/api/v1/apps',
      new URLSearchParams({ client_name: 'recsvc', redirect_uris: 'https://recs.example/cb', scopes: 'read write' }),
    );
    expect(app.body).toMatchObject({ name: 'recsvc', redirect_uris: ['https://recs.example/cb'], client_secret_expires_at: 0 });
    instance.setAuthorizingAccount('grace');
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorize = await get(
      `/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: app.body.client_id as string,
        redirect_uri: 'https://recs.example/cb',
        scope: 'read write',
        state: 'xyz',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }).toString()}`,
      null,
    );
    expect(authorize.status).toBe(302);
    const location = new URL(authorize.headers.get('location') as string);
    expect(location.origin + location.pathname).toBe('https://recs.example/cb');
    expect(location.searchParams.get('state')).toBe('xyz');
    const code = location.searchParams.get('code') as string;
    const exchange = {
      grant_type: 'authorization_code',
      code,
      client_id: app.body.client_id,
      client_secret: app.body.client_secret,
      redirect_uri: 'https://recs.example/cb',
    };
    expect((await post('/oauth/token', { ...exchange, code_verifier: 'wrong' })).body).toMatchObject({ error: 'invalid_grant' });
    const token = await post('/oauth/token', { ...exchange, code_verifier: verifier });
    expect(token.body).toMatchObject({ token_type: 'Bearer', scope: 'read write' });
    const me = await get('/api/v1/accounts/verify_credentials', token.body.access_token as string);
    expect(me.body).toMatchObject({ username: 'grace', source: { indexable: false }, role: { id: '-99' } });
    // Codes are single-use.
    expect((await post('/oauth/token', { ...exchange, code_verifier: verifier })).body).toMatchObject({ error: 'invalid_grant' });
    instance.setAuthorizingAccount(0);
  });

  it('serves v1 and v2 instance documents', async () => {
    expect((await get('/api/v1/instance', null)).body).toMatchObject({ uri: instance.host, version: '4.5.0' });
    expect((await get('/api/v2/instance', null)).body).toMatchObject({ domain: instance.host, api_versions: { mastodon: 6 } });
  });
});

describe('faults', () => {
  it('hit only the matching token, path and number of times, and every request is counted', async () => {
    const other = instance.issueToken('bob');
    instance.fault({ path: '/api/v1/accounts/verify_credentials', token: other, kind: 'status', status: 500, times: 2 });
    const before = instance.count('/api/v1/accounts/verify_credentials');
    expect((await get('/api/v1/accounts/verify_credentials')).status).toBe(200);
    expect((await get('/api/v1/accounts/verify_credentials', other)).status).toBe(500);
    expect((await get('/api/v1/accounts/verify_credentials', other)).status).toBe(500);
    expect((await get('/api/v1/accounts/verify_credentials', other)).status).toBe(200);
    expect(instance.count('/api/v1/accounts/verify_credentials')).toBe(before + 4);
    instance.clearFaults();
  });
});
