/**
 * The transparent proxy over real HTTP: against the Mastodon test instance (a favourite
 * reaches it with the caller's token and comes back unchanged), and against a recording
 * instance that shows exactly which headers, query and body bytes arrive and which of its
 * headers come back. Everything runs on 127.0.0.1 (insecure mode).
 */
import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { registerProxy } from '../../../server/proxy/proxy.feature.js';
import { checkProxiedPath, splitProxiedUrl } from '../../../server/proxy/proxy.service.js';
import type { SocialServices } from '../../../server/platform/social/social.service.js';
import { startMastodonInstance, testSocialServices, withSocial, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { startRecordingInstance, type RecordingInstance } from '../../helpers/recording-instance.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

/** A request sent with its target exactly as written (no client-side normalisation); chunks go chunked. */
function rawRequest(
  origin: string,
  target: string,
  headers: Record<string, string>,
  options: { method?: string; chunks?: string[] } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${origin}/`, { method: options.method ?? 'GET', headers, path: target }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    request.on('error', reject);
    for (const chunk of options.chunks ?? []) request.write(chunk);
    request.end();
  });
}

let listening: Promise<string> | undefined;
/** The test app over real HTTP (started once): inject could normalise a request target. */
function address(): Promise<string> {
  listening ??= t.app.listen({ port: 0, host: '127.0.0.1' });
  return listening;
}

let instance: MastodonTestInstance;
let recorder: RecordingInstance;
let social: SocialServices;
let t: TestApp;

beforeAll(async () => {
  instance = await startMastodonInstance();
  recorder = await startRecordingInstance();
  social = testSocialServices({ maxResponseBytes: 64 * 1024 });
  t = await createTestApp({
    ...withSocial(social),
    // The app's own proxy left out: this one is registered with the test's doubles.
    proxy: false,
    configure: async (app) => {
      await registerProxy(app, { social }, { dropIn: true });
    },
  });
});

afterAll(async () => {
  await t.close();
  await social.close();
  await instance.close();
  await recorder.close();
});

afterEach(() => {
  instance.clearFaults();
  recorder.answer = { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{}' };
  recorder.seen.length = 0;
});

const onInstance = (token = instance.token): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  'x-social-instance': instance.host,
});
const onRecorder = (): Record<string, string> => ({ authorization: 'Bearer eve-token', 'x-social-instance': recorder.host });

function someStatusId(): string {
  const status = instance.publicTimeline().find((s) => !s.reblog && s.visibility === 'public');
  return String(status!.id);
}

describe('the proxy against the Mastodon test instance', () => {
  it('forwards a favourite with the caller token and returns the status, body and headers unchanged', async () => {
    const id = someStatusId();
    instance.resetCounts();
    const response = await t.app.inject({ method: 'POST', url: `/api/v1/proxy/api/v1/statuses/${id}/favourite`, headers: onInstance() });
    expect(response.statusCode).toBe(200);
    const body = response.json<{ id: string; favourited: boolean }>();
    expect(body.id).toBe(id);
    expect(body.favourited).toBe(true);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['x-ratelimit-limit']).toBeDefined();
    expect(response.headers['x-ratelimit-remaining']).toBeDefined();
    expect(response.headers['x-ratelimit-reset']).toBeDefined();
    const seen = instance.requests.filter((r) => r.path === `/api/v1/statuses/${id}/favourite`);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe('POST');
    expect(seen[0]!.token).toBe(instance.token);
    // The instance's own view agrees, and the body is the one it sent.
    expect(instance.status(id)!.favourited).toBe(true);
    const undo = await t.app.inject({ method: 'POST', url: `/api/v1/proxy/api/v1/statuses/${id}/unfavourite`, headers: onInstance() });
    expect(undo.statusCode).toBe(200);
    expect(undo.json<{ favourited: boolean }>().favourited).toBe(false);
  });

  it('passes the Link header of a timeline page unchanged', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/proxy/api/v1/timelines/public?limit=5', headers: onInstance() });
    expect(response.statusCode).toBe(200);
    expect(response.json<unknown[]>()).toHaveLength(5);
    const link = response.headers.link as string;
    expect(link).toContain(`${instance.origin}/api/v1/timelines/public?`);
    expect(link).toContain('rel="next"');
  });

  it("passes the instance's error statuses through (404, 500) with its body", async () => {
    const missing = await t.app.inject({ method: 'GET', url: '/api/v1/proxy/api/v1/statuses/1', headers: onInstance() });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'Record not found' });
    instance.fault({ kind: 'status', status: 500, path: '/api/v1/timelines/home', body: { error: 'boom' } });
    const failing = await t.app.inject({ method: 'GET', url: '/api/v1/proxy/api/v1/timelines/home', headers: onInstance() });
    expect(failing.statusCode).toBe(500);
  });

  it('answers 503 in the spec error body when the instance cannot be reached or sends too much', async () => {
    instance.fault({ kind: 'drop', path: '/api/v1/timelines/home' });
    const dropped = await t.app.inject({ method: 'GET', url: '/api/v1/proxy/api/v1/timelines/home', headers: onInstance() });
    expect(dropped.statusCode).toBe(503);
    expect(dropped.json()).toMatchObject({ error: 'Service unavailable', status_code: 503 });
    instance.clearFaults();
    instance.fault({ kind: 'huge', bytes: 256 * 1024, path: '/api/v1/timelines/home' });
    const huge = await t.app.inject({ method: 'GET', url: '/api/v1/proxy/api/v1/timelines/home', headers: onInstance() });
    expect(huge.statusCode).toBe(503);
  });

  it('refuses callers without a social identity: 401 anonymous, 403 for a service token', async () => {
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/v1/proxy/api/v1/timelines/home' });
    expect(anonymous.statusCode).toBe(401);
    const service = await t.app.inject({
      method: 'GET',
      url: '/api/v1/proxy/api/v1/timelines/home',
      headers: { ...(await t.adminHeaders()), 'x-social-instance': instance.host },
    });
    expect(service.statusCode).toBe(403);
    instance.resetCounts();
    const rejected = await t.app.inject({ method: 'GET', url: '/api/v1/proxy/api/v1/timelines/home', headers: onInstance('nope') });
    expect(rejected.statusCode).toBe(401);
    expect(instance.count('/api/v1/timelines/home')).toBe(0);
  });
});

describe('what crosses the proxy', () => {
  it('forwards only the allowed request headers and the caller token', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/proxy/api/v1/notifications',
      headers: {
        ...onRecorder(),
        cookie: 'session=secret',
        'proxy-authorization': 'Basic c2VjcmV0',
        'x-forwarded-for': '10.0.0.1',
        'x-api-key': 'secret',
        'accept-language': 'de',
        'idempotency-key': 'k-1',
        connection: 'keep-alive, x-custom',
        'x-custom': 'hop',
      },
    });
    expect(response.statusCode).toBe(200);
    const seen = recorder.seen[0]!;
    expect(seen.headers.authorization).toBe('Bearer eve-token');
    expect(seen.headers['accept-language']).toBe('de');
    expect(seen.headers['idempotency-key']).toBe('k-1');
    for (const name of ['cookie', 'proxy-authorization', 'x-forwarded-for', 'x-api-key', 'x-custom', 'x-social-instance']) {
      expect(seen.headers[name], name).toBeUndefined();
    }
  });

  it('returns the needed response headers unchanged and strips Set-Cookie, hop-by-hop and server headers', async () => {
    recorder.answer = {
      status: 201,
      headers: {
        'content-type': 'application/activity+json; charset=utf-8',
        link: '<https://example.social/api/v1/x?max_id=7>; rel="next"',
        'x-ratelimit-limit': '300',
        'x-ratelimit-remaining': '299',
        'x-ratelimit-reset': '2026-11-23T04:00:00.000Z',
        'set-cookie': ['_session_id=abc; HttpOnly', 'other=1'],
        server: 'Mastodon',
        'x-powered-by': 'Rails',
        'keep-alive': 'timeout=5',
        'proxy-authenticate': 'Basic',
        'strict-transport-security': 'max-age=1',
      },
      body: '{"a": 1,  "b":[2]}',
    };
    const response = await t.app.inject({ method: 'POST', url: '/api/v1/proxy/api/v1/statuses', headers: onRecorder() });
    expect(response.statusCode).toBe(201);
    expect(response.body).toBe('{"a": 1,  "b":[2]}');
    expect(response.headers['content-type']).toBe('application/activity+json; charset=utf-8');
    expect(response.headers.link).toBe('<https://example.social/api/v1/x?max_id=7>; rel="next"');
    expect(response.headers['x-ratelimit-limit']).toBe('300');
    expect(response.headers['x-ratelimit-remaining']).toBe('299');
    expect(response.headers['x-ratelimit-reset']).toBe('2026-11-23T04:00:00.000Z');
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(response.headers.server).toBeUndefined();
    expect(response.headers['x-powered-by']).toBeUndefined();
    expect(response.headers['proxy-authenticate']).toBeUndefined();
    expect(response.headers['keep-alive']).toBeUndefined();
  });

  it('never forwards hop-by-hop headers, nor an allowed header the Connection header names', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/proxy/api/v1/notifications',
      headers: {
        ...onRecorder(),
        connection: 'keep-alive, upgrade, idempotency-key',
        'keep-alive': 'timeout=5',
        te: 'trailers',
        trailer: 'x-checksum',
        upgrade: 'h2c',
        'proxy-connection': 'keep-alive',
        'idempotency-key': 'k-hop',
        'accept-language': 'fr',
      },
    });
    expect(response.statusCode).toBe(200);
    const seen = recorder.seen[0]!;
    for (const name of ['keep-alive', 'te', 'trailer', 'upgrade', 'proxy-connection', 'idempotency-key', 'cookie', 'x-social-instance']) {
      expect(seen.headers[name], name).toBeUndefined();
    }
    expect(seen.headers.connection ?? '').not.toMatch(/upgrade|idempotency/i);
    expect(seen.headers['accept-language']).toBe('fr');
  });

  it('sends a chunked body on as bytes with its length, not as Transfer-Encoding', async () => {
    const origin = await address();
    const response = await rawRequest(
      origin,
      '/api/v1/proxy/api/v1/statuses',
      { ...onRecorder(), 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      { method: 'POST', chunks: ['{"status":', '"in three ', 'chunks"}'] },
    );
    expect(response.status).toBe(200);
    const seen = recorder.seen[0]!;
    expect(seen.body.toString('utf8')).toBe('{"status":"in three chunks"}');
    expect(seen.headers['transfer-encoding']).toBeUndefined();
    expect(seen.headers['content-length']).toBe(String(seen.body.length));
  });

  it("drops the instance's hop-by-hop headers and any allowed header its Connection header names", async () => {
    recorder.answer = {
      status: 200,
      headers: {
        'content-type': 'application/json',
        connection: 'keep-alive, etag',
        etag: '"hop"',
        'cache-control': 'private',
        trailer: 'x-checksum',
        upgrade: 'h2c',
        'set-cookie': 'session=1; HttpOnly',
        'x-social-instance': 'elsewhere.example',
      },
      body: '[1,2]',
    };
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/proxy/api/v1/notifications', headers: onRecorder() });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('[1,2]');
    expect(response.headers['cache-control']).toBe('private');
    for (const name of ['etag', 'trailer', 'upgrade', 'set-cookie', 'x-social-instance', 'transfer-encoding']) {
      expect(response.headers[name], name).toBeUndefined();
    }
  });

  it("keeps the service's own Vary (CORS with listed origins) next to the instance's", async () => {
    const listed = await createTestApp({
      ...withSocial(social),
      corsOrigins: ['https://elk.zone'],
      proxy: false,
      configure: async (app) => {
        await registerProxy(app, { social }, { dropIn: true });
      },
    });
    try {
      recorder.answer = { status: 200, headers: { 'content-type': 'application/json', vary: 'Accept-Encoding' }, body: '{}' };
      const response = await listed.app.inject({
        method: 'GET',
        url: '/api/v1/proxy/api/v1/notifications',
        headers: { ...onRecorder(), origin: 'https://elk.zone' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe('https://elk.zone');
      const vary = String(response.headers.vary)
        .split(/\s*,\s*/)
        .map((name) => name.toLowerCase());
      expect(vary).toEqual(expect.arrayContaining(['origin', 'accept-encoding']));
    } finally {
      await listed.close();
    }
  });

  it('forwards the query string byte for byte, through the proxy and in drop-in mode', async () => {
    const origin = await address();
    const query = 'types[]=mention&types[]=favourite&exclude_types%5B%5D=follow&q=caf%C3%A9+au%20lait&empty=&flag&z=1&a=2&z=3&s=%2F%3F%26';
    for (const target of [`/api/v1/proxy/api/v1/notifications?${query}`, `/api/v1/notifications?${query}`]) {
      recorder.seen.length = 0;
      const response = await rawRequest(origin, target, onRecorder());
      expect(response.status, target).toBe(200);
      expect(recorder.seen[0]!.url, target).toBe(`/api/v1/notifications?${query}`);
    }
    // The Mastodon test instance receives it the same way.
    const response = await rawRequest(origin, `/api/v1/proxy/api/v1/timelines/public?${query}`, onInstance());
    expect(response.status).toBe(200);
    expect(instance.requests[instance.requests.length - 1]!.url).toBe(`/api/v1/timelines/public?${query}`);
  });

  it('forwards the body bytes and content type unchanged, and the query', async () => {
    const cases = [
      { type: 'application/json', body: '{"status":"hi \\u00e9","visibility" : "public"}' },
      { type: 'application/x-www-form-urlencoded', body: 'status=hi%20there&media_ids[]=1&media_ids[]=2' },
      {
        type: 'multipart/form-data; boundary=XyZ',
        body: '--XyZ\r\nContent-Disposition: form-data; name="status"\r\n\r\nhé\r\n--XyZ--\r\n',
      },
    ];
    for (const { type, body } of cases) {
      recorder.seen.length = 0;
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/proxy/api/v1/statuses?x=1&tag=caf%C3%A9',
        headers: { ...onRecorder(), 'content-type': type },
        payload: Buffer.from(body, 'utf8'),
      });
      expect(response.statusCode, type).toBe(200);
      const seen = recorder.seen[0]!;
      expect(seen.method).toBe('POST');
      expect(seen.headers['content-type']).toBe(type);
      expect(seen.body.equals(Buffer.from(body, 'utf8')), type).toBe(true);
      const url = new URL(seen.url, 'http://x');
      expect(url.pathname).toBe('/api/v1/statuses');
      expect([...url.searchParams]).toEqual([
        ['x', '1'],
        ['tag', 'café'],
      ]);
    }
  });

  it('forwards PUT, PATCH and DELETE, and a body on them', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      recorder.seen.length = 0;
      const response = await t.app.inject({
        method,
        url: '/api/v1/proxy/api/v1/lists/3',
        headers: { ...onRecorder(), 'content-type': 'application/json' },
        payload: '{"title":"x"}',
      });
      expect(response.statusCode, method).toBe(200);
      expect(recorder.seen[0]!.method).toBe(method);
      expect(recorder.seen[0]!.url).toBe('/api/v1/lists/3');
      expect(recorder.seen[0]!.body.toString()).toBe('{"title":"x"}');
    }
  });

  it('cannot leave the instance: dot segments, scheme-relative and absolute URLs are refused or stay on the instance', async () => {
    // Over real HTTP: an injected request would have its dot segments normalised by the client.
    const origin = await address();
    for (const url of [
      '/api/v1/proxy/api/v1/../../admin',
      '/api/v1/proxy/api/v1/%2e%2e/%2E%2E/admin',
      '/api/v1/proxy/api/./v1',
      '/api/v1/proxy//evil.example/api/v1/x',
      '/api/v1/proxy/%2F%2Fevil.example/x',
      '/api/v1/proxy/api\\v1',
    ]) {
      const response = await rawRequest(origin, url, onRecorder());
      expect(response.status, url).toBe(400);
      expect(JSON.parse(response.body), url).toMatchObject({ status_code: 400 });
    }
    expect(recorder.seen).toHaveLength(0);
    // An absolute URL as the path is a path on the caller's instance, nothing more.
    const absolute = await t.app.inject({ method: 'GET', url: '/api/v1/proxy/http://evil.example/x', headers: onRecorder() });
    expect(absolute.statusCode).toBe(200);
    expect(recorder.seen[0]!.url).toBe('/http://evil.example/x');
  });

  it('splits and checks paths', () => {
    expect(splitProxiedUrl('/api/v1/proxy/api/v1/a?b=1', '/api/v1/proxy')).toEqual({ path: '/api/v1/a', query: 'b=1' });
    expect(splitProxiedUrl('http://other.example/api/v1/proxy/x', '/api/v1/proxy')).toEqual({ path: '/x', query: '' });
    expect(checkProxiedPath('/api/v1/statuses/1')).toBe('/api/v1/statuses/1');
    expect(() => checkProxiedPath('/a/%zz')).toThrow(/percent/);
    expect(() => checkProxiedPath('/a/%00')).toThrow();
  });
});

describe('drop-in mode', () => {
  it('forwards /api/v1/instance and /api/v2/instance without a token', async () => {
    for (const path of ['/api/v1/instance', '/api/v2/instance']) {
      instance.resetCounts();
      const response = await t.app.inject({ method: 'GET', url: path, headers: { 'x-social-instance': instance.host } });
      expect(response.statusCode, path).toBe(200);
      expect(response.json<{ uri?: string; domain?: string }>()).toBeTypeOf('object');
      expect(instance.count(path)).toBe(1);
    }
  });

  it('forwards an unimplemented Mastodon path with the caller token, a favourite included', async () => {
    const id = someStatusId();
    instance.resetCounts();
    const response = await t.app.inject({ method: 'POST', url: `/api/v1/statuses/${id}/bookmark`, headers: onInstance() });
    expect(response.statusCode).toBe(200);
    expect(response.json<{ bookmarked: boolean }>().bookmarked).toBe(true);
    expect(instance.requests.find((r) => r.path === `/api/v1/statuses/${id}/bookmark`)?.token).toBe(instance.token);
  });

  it("keeps the service's own routes and the spec's 404 for other paths", async () => {
    recorder.seen.length = 0;
    const own = await t.app.inject({ method: 'GET', url: '/health' });
    expect(own.statusCode).toBe(200);
    for (const url of [
      '/nothing/here',
      '/api/v3/instance',
      '/.well-known/other',
      '/oauthx',
      '/api/v10/instance',
      '/.well-known/nodeinfo/x',
    ]) {
      const response = await t.app.inject({ method: 'GET', url, headers: onRecorder() });
      expect(response.statusCode, url).toBe(404);
      expect(response.json(), url).toMatchObject({ error: 'Resource not found', status_code: 404 });
    }
    // No X-Social-Instance and no default instance: nothing to forward to, the app's own 404.
    for (const url of ['/api/v1/instance', '/.well-known/nodeinfo', '/oauth/authorize']) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
      expect(response.json(), url).toMatchObject({ error: 'Resource not found', status_code: 404 });
    }
    expect(recorder.seen).toHaveLength(0);
  });

  it("answers the app's own 404 for a method the service does not implement on a path it routes, without forwarding it", async () => {
    for (const [method, url] of [
      ['POST', '/api/v1/timelines/home'],
      ['DELETE', '/api/v1/timelines/public?local=true'],
      ['PUT', '/api/v1/timelines/tag/cats'],
      ['DELETE', '/api/v1/recommendations'],
      ['PATCH', '/api/v1/interactions'],
    ] as const) {
      const response = await t.app.inject({ method, url, headers: onRecorder() });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.json(), `${method} ${url}`).toMatchObject({
        error: 'Resource not found',
        message: `No route for ${method} ${url.split('?')[0]!}`,
        status_code: 404,
      });
    }
    expect(recorder.seen).toHaveLength(0);
    // Mastodon paths the service does not route are forwarded, whatever the method.
    for (const [method, url] of [
      ['GET', '/api/v1/timelines/list/3'],
      ['DELETE', '/api/v1/statuses/7'],
      ['PUT', '/api/v1/timelines/home/extra'],
    ] as const) {
      recorder.seen.length = 0;
      const response = await t.app.inject({ method, url, headers: onRecorder() });
      expect(response.statusCode, `${method} ${url}`).toBe(200);
      expect(recorder.seen.map((r) => `${r.method} ${r.url}`)).toEqual([`${method} ${url}`]);
    }
  });

  it('forwards /oauth/* and /.well-known/nodeinfo, and refuses a token the service could not verify', async () => {
    recorder.answer = { status: 302, headers: { location: 'https://example.social/auth/sign_in', 'set-cookie': 'x=1' }, body: '' };
    const authorize = await t.app.inject({
      method: 'GET',
      url: '/oauth/authorize?client_id=a&response_type=code',
      headers: { 'x-social-instance': recorder.host },
    });
    expect(authorize.statusCode).toBe(302);
    expect(authorize.headers.location).toBe('https://example.social/auth/sign_in');
    expect(authorize.headers['set-cookie']).toBeUndefined();
    expect(recorder.seen[0]!.headers.authorization).toBeUndefined();
    recorder.answer = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"links":[]}' };
    const nodeinfo = await t.app.inject({ method: 'GET', url: '/.well-known/nodeinfo', headers: { 'x-social-instance': recorder.host } });
    expect(nodeinfo.statusCode).toBe(200);
    expect(nodeinfo.body).toBe('{"links":[]}');
    const rejected = await t.app.inject({ method: 'GET', url: '/api/v1/notifications', headers: onInstance('nope') });
    expect(rejected.statusCode).toBe(401);
  });
});
