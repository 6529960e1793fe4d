/**
 * A Mastodon token revoked at its instance stops opening the service's own routes as soon as
 * the instance answers 401 to a call made with it (a timeline, a proxied request), instead of
 * for the rest of the verification cache's lifetime (5 minutes); in the cache shared between
 * processes too. Against the Mastodon test instance on 127.0.0.1 (insecure mode).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SharedTokenCache } from '../../../server/platform/social/mastodon-identity.js';
import type { SocialServices } from '../../../server/platform/social/social.service.js';
import { startMastodonInstance, testSocialServices, withSocial, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

const VERIFY = '/api/v1/accounts/verify_credentials';
const EXPORT = '/api/v1/privacy/export';

/** The shared cache's contract in memory (what server/platform/redis/redis-token-cache.ts keeps in Redis). */
class MemorySharedCache implements SharedTokenCache {
  readonly entries = new Map<string, string>();
  async get(instanceHost: string, token: string): Promise<string | undefined> {
    return this.entries.get(`${instanceHost}\n${token}`);
  }
  async set(instanceHost: string, token: string, value: string): Promise<void> {
    this.entries.set(`${instanceHost}\n${token}`, value);
  }
  async delete(instanceHost: string, token: string): Promise<void> {
    this.entries.delete(`${instanceHost}\n${token}`);
  }
  async clear(): Promise<void> {
    this.entries.clear();
  }
}

let instance: MastodonTestInstance;
let social: SocialServices;
let shared: MemorySharedCache;
let t: TestApp;

beforeAll(async () => {
  instance = await startMastodonInstance();
  social = testSocialServices();
  shared = new MemorySharedCache();
  social.identityProvider.useSharedCache(shared);
  t = await createTestApp(withSocial(social));
});

afterAll(async () => {
  await t.close();
  await social.close();
  await instance.close();
});

beforeEach(() => {
  social.identityProvider.forget();
  instance.resetCounts();
});

function as(token: string) {
  return { authorization: `Bearer ${token}`, 'x-social-instance': instance.host };
}

/** A fresh token of alice, verified once by the service (so it is cached here and shared), then revoked at the instance. */
async function verifiedThenRevoked(): Promise<string> {
  const token = instance.issueToken();
  const verifications = instance.count(VERIFY);
  const before = await t.app.inject({ url: EXPORT, headers: as(token) });
  expect(before.statusCode, before.body).toBe(200);
  expect(await shared.get(instance.host, token)).toBeDefined();
  instance.revokeToken(token);
  // Within the cache's lifetime the revocation is not known yet: the documented 5 minutes.
  const cached = await t.app.inject({ url: EXPORT, headers: as(token) });
  expect(cached.statusCode, cached.body).toBe(200);
  expect(instance.count(VERIFY)).toBe(verifications + 1);
  return token;
}

describe('a token revoked at its instance', () => {
  it('is refused on the service’s own routes once a timeline call got 401 from the instance', async () => {
    const token = await verifiedThenRevoked();
    const timeline = await t.app.inject({ url: '/api/v1/timelines/home', headers: as(token) });
    expect(timeline.statusCode, timeline.body).toBe(401);
    expect(await shared.get(instance.host, token)).toBeUndefined();
    const after = await t.app.inject({ url: EXPORT, headers: as(token) });
    expect(after.statusCode, after.body).toBe(401);
    expect(after.json()).toMatchObject({ error: 'Authentication required', status_code: 401 });
    // The instance was asked again and refused it; that refusal is remembered, not asked per request.
    expect(instance.count(VERIFY)).toBe(2);
    expect((await t.app.inject({ url: EXPORT, headers: as(token) })).statusCode).toBe(401);
    expect(instance.count(VERIFY)).toBe(2);
  });

  it('is refused on the service’s own routes once a proxied call got 401 from the instance', async () => {
    const token = await verifiedThenRevoked();
    const proxied = await t.app.inject({ url: '/api/v1/proxy/api/v1/timelines/home', headers: as(token) });
    expect(proxied.statusCode, proxied.body).toBe(401);
    expect(await shared.get(instance.host, token)).toBeUndefined();
    const after = await t.app.inject({ url: EXPORT, headers: as(token) });
    expect(after.statusCode, after.body).toBe(401);
  });

  it('leaves other tokens of the same user trusted', async () => {
    const kept = instance.issueToken();
    expect((await t.app.inject({ url: EXPORT, headers: as(kept) })).statusCode).toBe(200);
    const token = await verifiedThenRevoked();
    expect((await t.app.inject({ url: '/api/v1/timelines/home', headers: as(token) })).statusCode).toBe(401);
    const verifications = instance.count(VERIFY);
    expect((await t.app.inject({ url: EXPORT, headers: as(kept) })).statusCode).toBe(200);
    expect(instance.count(VERIFY)).toBe(verifications);
  });
});
