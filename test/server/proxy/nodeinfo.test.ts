/**
 * Drop-in mode's `/.well-known/nodeinfo` is not an open relay: anonymous callers are held to
 * the anonymous rate limit, the instance is asked once per instance and TTL (a bounded cache),
 * and without the caller's credentials. Real HTTP to a recording instance on 127.0.0.1.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMIT_POLICY } from '../../../src/rate-limit/policy.js';
import { registerProxy } from '../../../server/proxy/proxy.feature.js';
import type { NodeinfoCache } from '../../../server/proxy/nodeinfo-cache.js';
import type { SocialServices } from '../../../server/platform/social/social.service.js';
import { testSocialServices, withSocial } from '../../helpers/mastodon-instance.js';
import { startRecordingInstance, type RecordingInstance } from '../../helpers/recording-instance.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

const DISCOVERY = '{"links":[{"rel":"http://nodeinfo.diaspora.software/ns/schema/2.0","href":"https://example.social/nodeinfo/2.0"}]}';
const TTL_MS = 60_000;

let recorder: RecordingInstance;
let other: RecordingInstance;
let social: SocialServices;
let t: TestApp;
let nodeinfo: NodeinfoCache;
let nowMs = 1_000_000;

beforeAll(async () => {
  recorder = await startRecordingInstance();
  other = await startRecordingInstance();
  social = testSocialServices();
  t = await createTestApp({
    ...withSocial(social),
    proxy: false,
    configure: async (app) => {
      ({ nodeinfo } = await registerProxy(app, { social }, { dropIn: true, nodeinfo: { ttlMs: TTL_MS, capacity: 1, now: () => nowMs } }));
    },
  });
});

afterAll(async () => {
  await t.close();
  await social.close();
  await recorder.close();
  await other.close();
});

afterEach(() => {
  recorder.seen.length = 0;
  other.seen.length = 0;
});

function discover(host: string, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'GET', url: '/.well-known/nodeinfo', headers: { 'x-social-instance': host, ...headers } });
}

describe('nodeinfo discovery in drop-in mode', () => {
  it('asks each instance once per TTL, without the caller’s token or headers, and keeps a bounded number of instances', async () => {
    recorder.answer = { status: 200, headers: { 'content-type': 'application/json', 'x-ratelimit-remaining': '7' }, body: DISCOVERY };
    other.answer = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"links":[]}' };
    const user = await t.userHeaders('u1');
    for (let i = 0; i < 5; i++) {
      const response = await discover(recorder.host, { ...user, 'accept-language': 'de', cookie: 'session=1' });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(DISCOVERY);
      expect(response.headers['content-type']).toBe('application/json');
      expect(response.headers['x-ratelimit-remaining']).toBeUndefined();
    }
    expect(recorder.seen.map((seen) => seen.url)).toEqual(['/.well-known/nodeinfo']);
    expect(recorder.seen[0]!.headers.authorization).toBeUndefined();
    expect(recorder.seen[0]!.headers['accept-language']).toBeUndefined();
    expect(recorder.seen[0]!.headers.cookie).toBeUndefined();
    // Past the TTL the instance is asked again.
    nowMs += TTL_MS + 1;
    expect((await discover(recorder.host)).body).toBe(DISCOVERY);
    expect(recorder.seen).toHaveLength(2);
    // Capacity 1: another instance's answer takes the only place.
    expect((await discover(other.host)).body).toBe('{"links":[]}');
    expect(nodeinfo.size).toBe(1);
    expect((await discover(recorder.host)).body).toBe(DISCOVERY);
    expect(recorder.seen).toHaveLength(3);
  });

  it('keeps no failure: a 5xx is passed on and the next request asks again', async () => {
    nowMs += TTL_MS + 1;
    recorder.answer = { status: 502, headers: { 'content-type': 'text/plain' }, body: 'bad gateway' };
    expect((await discover(recorder.host)).statusCode).toBe(502);
    recorder.answer = { status: 200, headers: { 'content-type': 'application/json' }, body: DISCOVERY };
    expect((await discover(recorder.host)).body).toBe(DISCOVERY);
    expect(recorder.seen).toHaveLength(2);
  });
});

describe('nodeinfo discovery under the rate limit', () => {
  let limited: TestApp;
  let limitedSocial: SocialServices;

  beforeAll(async () => {
    limitedSocial = testSocialServices();
    limited = await createTestApp({
      ...withSocial(limitedSocial),
      proxy: false,
      rateLimit: DEFAULT_RATE_LIMIT_POLICY,
      configure: async (app) => {
        await registerProxy(app, { social: limitedSocial }, { dropIn: true });
      },
    });
  });

  afterAll(async () => {
    await limited.close();
    await limitedSocial.close();
  });

  it('answers an anonymous caller 429 once its per-minute allowance (20) is spent', async () => {
    recorder.answer = { status: 200, headers: { 'content-type': 'application/json' }, body: DISCOVERY };
    const statuses: number[] = [];
    let refused: { statusCode: number; json(): unknown; headers: Record<string, unknown> } | undefined;
    for (let i = 0; i < 25; i++) {
      const response = await limited.app.inject({
        method: 'GET',
        url: '/.well-known/nodeinfo',
        headers: { 'x-social-instance': recorder.host },
      });
      statuses.push(response.statusCode);
      if (response.statusCode === 429) refused ??= response;
      else expect(response.headers['x-ratelimit-limit']).toBeDefined();
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(20);
    expect(statuses.slice(20)).toEqual([429, 429, 429, 429, 429]);
    expect(refused!.json()).toMatchObject({ error: 'Rate limit exceeded', status_code: 429 });
    expect(refused!.headers['x-ratelimit-remaining']).toBe('0');
    expect(recorder.seen).toHaveLength(1);
  });
});
