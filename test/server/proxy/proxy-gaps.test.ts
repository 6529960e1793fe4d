/**
 * Two gaps of the proxy's tests, against a recording instance on 127.0.0.1 (insecure mode)
 * that keeps every request it receives, verify_credentials included:
 *
 * - Drop-in mode called with a SERVICE token (admin, user-bound, or unknown but service-shaped):
 *   documented (proxy.routes.ts, dropInRoutes) as forwarded without credentials, and a token the
 *   service cannot verify as 401. Whatever the outcome, no Authorization header and no byte of
 *   the service token reaches the instance, on any request.
 * - HEAD through `/api/v1/proxy/...`: forwarded as HEAD; the instance's status and allowed
 *   headers come back, and no body.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SocialServices } from '../../../server/platform/social/social.service.js';
import { testSocialServices, withSocial } from '../../helpers/mastodon-instance.js';
import { startRecordingInstance, type RecordingInstance } from '../../helpers/recording-instance.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

const DEFAULT_ANSWER = { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"ok":true}' };
/** The Mastodon token the recording instance accepts. */
const SOCIAL_TOKEN = 'eve-mastodon-token';

let recorder: RecordingInstance;
let social: SocialServices;
let t: TestApp;

beforeAll(async () => {
  recorder = await startRecordingInstance({ answer: { ...DEFAULT_ANSWER }, acceptToken: SOCIAL_TOKEN, recordVerification: true });
  social = testSocialServices();
  // The app's own proxy and drop-in mode, as `recsvc serve` registers them.
  t = await createTestApp({ ...withSocial(social) });
});

afterAll(async () => {
  await t.close();
  await social.close();
  await recorder.close();
});

afterEach(() => {
  recorder.answer = { ...DEFAULT_ANSWER };
  recorder.seen.length = 0;
});

/** Every header value the instance received, across every request, as one text. */
function everyHeaderSeen(): string {
  return recorder.seen.map((seen) => JSON.stringify(seen.headers)).join('\n');
}

/** The secret part of a service token and the spellings it could travel in. */
function spellings(token: string): string[] {
  const secret = token.replace(/^rsv_/, '');
  return [token, secret, Buffer.from(token).toString('base64'), Buffer.from(token).toString('base64url')];
}

function expectNoCredentialsReached(token: string, label: string): void {
  for (const seen of recorder.seen) {
    expect(seen.headers.authorization, `${label}: ${seen.method} ${seen.url}`).toBeUndefined();
    expect(seen.headers['proxy-authorization'], `${label}: ${seen.method} ${seen.url}`).toBeUndefined();
    expect(seen.headers.cookie, `${label}: ${seen.method} ${seen.url}`).toBeUndefined();
  }
  const headers = everyHeaderSeen();
  const urls = recorder.seen.map((seen) => seen.url).join('\n');
  const bodies = recorder.seen.map((seen) => seen.body.toString('latin1')).join('\n');
  for (const spelling of spellings(token)) {
    expect(headers, label).not.toContain(spelling);
    expect(urls, label).not.toContain(spelling);
    expect(bodies, label).not.toContain(spelling);
  }
}

describe('drop-in mode with a service token', () => {
  it('forwards the request without credentials: no Authorization and no trace of the token reaches the instance', async () => {
    const callers = {
      admin: (await t.adminHeaders()).authorization!,
      user: (await t.userHeaders('u1')).authorization!,
    };
    for (const [label, authorization] of Object.entries(callers)) {
      recorder.seen.length = 0;
      const token = authorization.replace(/^Bearer /, '');
      expect(token).toMatch(/^rsv_/);
      for (const [method, url] of [
        ['GET', '/api/v1/notifications?limit=5'],
        ['POST', '/api/v1/statuses/7/favourite'],
        ['GET', '/api/v2/instance'],
        ['GET', '/.well-known/nodeinfo'],
      ] as const) {
        const response = await t.app.inject({
          method,
          url,
          headers: { authorization, 'x-social-instance': recorder.host, 'accept-language': 'de' },
        });
        // Documented (dropInRoutes): a service token is forwarded without credentials.
        expect(response.statusCode, `${label} ${method} ${url}: ${response.body}`).toBe(200);
        expect(response.body).toBe('{"ok":true}');
      }
      // What the instance received: the four requests, and nothing else (no verify_credentials with the token);
      // nodeinfo only the first time, the next caller is answered from its cache (server/proxy/nodeinfo-cache.ts).
      expect(
        recorder.seen.map((seen) => `${seen.method} ${seen.url}`),
        label,
      ).toEqual([
        'GET /api/v1/notifications?limit=5',
        'POST /api/v1/statuses/7/favourite',
        'GET /api/v2/instance',
        ...(label === 'admin' ? ['GET /.well-known/nodeinfo'] : []),
      ]);
      // The allowed headers still cross (the assertion below is not vacuous: headers did arrive).
      expect(recorder.seen[0]!.headers['accept-language']).toBe('de');
      expectNoCredentialsReached(token, label);
    }
  });

  it('refuses a service-shaped token it cannot verify with 401, and the instance never hears of it', async () => {
    const unknown = `rsv_${randomBytes(32).toString('base64url')}`;
    const revokedOrExpired = await t.token(['read', 'write'], { userId: 'u2', ttlSeconds: -60 });
    for (const token of [unknown, revokedOrExpired]) {
      recorder.seen.length = 0;
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/v1/notifications',
        headers: { authorization: `Bearer ${token}`, 'x-social-instance': recorder.host },
      });
      expect(response.statusCode, response.body).toBe(401);
      expect(recorder.seen, 'nothing reaches the instance, not even verify_credentials').toEqual([]);
      expectNoCredentialsReached(token, token);
    }
  });

  it('still forwards a Mastodon token as Authorization (the recorder would see credentials if they were sent)', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/notifications',
      headers: { authorization: `Bearer ${SOCIAL_TOKEN}`, 'x-social-instance': recorder.host },
    });
    expect(response.statusCode, response.body).toBe(200);
    const forwarded = recorder.seen.filter((seen) => seen.url === '/api/v1/notifications');
    expect(forwarded).toHaveLength(1);
    expect(forwarded[0]!.headers.authorization).toBe(`Bearer ${SOCIAL_TOKEN}`);
  });
});

describe('HEAD through /api/v1/proxy', () => {
  const onRecorder = (): Record<string, string> => ({ authorization: `Bearer ${SOCIAL_TOKEN}`, 'x-social-instance': recorder.host });

  it("is forwarded as HEAD and answers the instance's status and headers, with no body", async () => {
    const body = JSON.stringify([{ id: '1', content: 'x'.repeat(200) }]);
    recorder.answer = {
      status: 200,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
        link: '<https://example.social/api/v1/timelines/home?max_id=7>; rel="next"',
        etag: 'W/"abc123"',
        'cache-control': 'private, no-store',
        'x-ratelimit-limit': '300',
        'x-ratelimit-remaining': '297',
        'x-ratelimit-reset': '2026-11-23T04:00:00.000Z',
        'set-cookie': '_session_id=abc; HttpOnly',
        server: 'Mastodon',
      },
      body,
    };
    const response = await t.app.inject({ method: 'HEAD', url: '/api/v1/proxy/api/v1/timelines/home?limit=2', headers: onRecorder() });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.body).toBe('');
    expect(response.rawPayload.length).toBe(0);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers.link).toBe('<https://example.social/api/v1/timelines/home?max_id=7>; rel="next"');
    expect(response.headers.etag).toBe('W/"abc123"');
    expect(response.headers['cache-control']).toBe('private, no-store');
    expect(response.headers['x-ratelimit-limit']).toBe('300');
    expect(response.headers['x-ratelimit-remaining']).toBe('297');
    expect(response.headers['x-ratelimit-reset']).toBe('2026-11-23T04:00:00.000Z');
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(response.headers.server).toBeUndefined();
    const forwarded = recorder.seen.filter((seen) => seen.url.startsWith('/api/v1/timelines/home'));
    expect(forwarded.map((seen) => `${seen.method} ${seen.url}`)).toEqual(['HEAD /api/v1/timelines/home?limit=2']);
    expect(forwarded[0]!.headers.authorization).toBe(`Bearer ${SOCIAL_TOKEN}`);
  });

  it("passes an error status of the instance through on HEAD, still without a body (the service's error body included)", async () => {
    recorder.answer = {
      status: 404,
      headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': '31', 'x-ratelimit-remaining': '12' },
      body: '{"error":"Record not found!!!"}',
    };
    const response = await t.app.inject({ method: 'HEAD', url: '/api/v1/proxy/api/v1/statuses/1', headers: onRecorder() });
    expect(response.statusCode).toBe(404);
    expect(response.rawPayload.length).toBe(0);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['x-ratelimit-remaining']).toBe('12');
    expect(recorder.seen.filter((seen) => seen.url === '/api/v1/statuses/1').map((seen) => seen.method)).toEqual(['HEAD']);
  });

  it('follows the GET rule: anonymous is 401, a service token 403, and neither is forwarded', async () => {
    const anonymous = await t.app.inject({
      method: 'HEAD',
      url: '/api/v1/proxy/api/v1/timelines/home',
      headers: { 'x-social-instance': recorder.host },
    });
    expect(anonymous.statusCode).toBe(401);
    const service = await t.app.inject({
      method: 'HEAD',
      url: '/api/v1/proxy/api/v1/timelines/home',
      headers: { ...(await t.adminHeaders()), 'x-social-instance': recorder.host },
    });
    expect(service.statusCode).toBe(403);
    expect(anonymous.rawPayload.length + service.rawPayload.length).toBe(0);
    expect(recorder.seen.filter((seen) => seen.url.startsWith('/api/v1/timelines/home'))).toEqual([]);
  });
});
