/**
 * Mastodon tokens through the whole app: the service asks the instance once
 * (verify_credentials), caches the answer, and maps every instance failure to 401 or 503.
 * The test instance runs on 127.0.0.1 over plain HTTP (insecure mode).
 */
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SocialServices } from '../../../server/platform/social/social.service.js';
import type { SocialOptions } from '../../../server/platform/social/social-options.js';
import {
  startConnectionCounter,
  startMastodonInstance,
  testSocialServices,
  withSocial,
  type MastodonTestInstance,
} from '../../helpers/mastodon-instance.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

const VERIFY = '/api/v1/accounts/verify_credentials';

let instance: MastodonTestInstance;

beforeAll(async () => {
  instance = await startMastodonInstance();
});

afterAll(async () => {
  await instance.close();
});

afterEach(() => {
  instance.clearFaults();
});

interface Harness {
  t: TestApp;
  social: SocialServices;
  logs: string[];
  close(): Promise<void>;
}

/** An app whose identity providers are service tokens, then Mastodon tokens (insecure mode, short timeouts). */
async function harness(options: Partial<SocialOptions> = {}, now?: () => number): Promise<Harness> {
  const social = testSocialServices({ maxResponseBytes: 128 * 1024, ...options }, now ? { now } : {});
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const t = await createTestApp({
    ...withSocial(social),
    logger: { level: 'trace', stream },
    configure: (app) => {
      app.get('/test/whoami', { config: { access: { scope: 'read' } } }, async (request) => {
        const identity = request.identity;
        return identity.kind === 'authenticated'
          ? {
              userId: identity.userId,
              scopes: [...identity.scopes],
              tier: identity.tier,
              source: identity.source,
              subjectKey: identity.subjectKey,
            }
          : { kind: identity.kind };
      });
    },
  });
  return {
    t,
    social,
    logs,
    async close() {
      await t.close();
      await social.close();
    },
  };
}

/** GET /test/whoami with a token and `X-Social-Instance` (the test instance by default, none when null). */
const whoami = (h: Harness, token: string, socialInstance: string | null = instance.host) =>
  h.t.app.inject({
    method: 'GET',
    url: '/test/whoami',
    headers: { authorization: `Bearer ${token}`, ...(socialInstance === null ? {} : { 'x-social-instance': socialInstance }) },
  });

describe('Mastodon tokens', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('the account becomes the identity: <account id>@<instance host>, read+write, authenticated, social', async () => {
    const token = instance.issueToken('carol');
    const response = await whoami(h, token);
    expect(response.statusCode).toBe(200);
    const carolId = instance.accountIdOf(token);
    expect(response.json()).toEqual({
      userId: `${carolId}@${instance.host}`,
      scopes: ['read', 'write'],
      tier: 'authenticated',
      source: 'social',
      subjectKey: expect.stringMatching(/^social:[A-Za-z0-9_-]{22}$/) as unknown,
    });
    // Two tokens of one account are one user, with one rate-limit subject.
    const again = await whoami(h, instance.issueToken('carol'));
    expect(again.json()).toEqual(response.json());
  });

  it('asks the instance once per token: a second request is answered from the cache', async () => {
    const token = instance.issueToken('bob');
    const before = instance.count(VERIFY);
    expect((await whoami(h, token)).statusCode).toBe(200);
    expect(instance.count(VERIFY)).toBe(before + 1);
    for (let i = 0; i < 3; i++) expect((await whoami(h, token)).statusCode).toBe(200);
    expect(instance.count(VERIFY)).toBe(before + 1);
  });

  it('concurrent first requests of one token share one instance call', async () => {
    const token = instance.issueToken('erin');
    const before = instance.count(VERIFY);
    instance.fault({ path: VERIFY, kind: 'slow', delayMs: 100, times: 1 });
    const responses = await Promise.all(Array.from({ length: 8 }, () => whoami(h, token)));
    expect(responses.map((response) => response.statusCode)).toEqual(new Array(8).fill(200));
    expect(instance.count(VERIFY)).toBe(before + 1);
  });

  it('a token the instance rejects is 401 Authentication required, and the refusal is remembered', async () => {
    const before = instance.count(VERIFY);
    const response = await whoami(h, 'made-up-token');
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ error: 'Authentication required', status_code: 401 });
    expect(response.headers['www-authenticate']).toContain('invalid_token');
    expect((await whoami(h, 'made-up-token')).statusCode).toBe(401);
    expect(instance.count(VERIFY)).toBe(before + 1);
  });

  it('a 401 for one token (revoked at the instance) is 401', async () => {
    const token = instance.issueToken('frank');
    instance.fault({ path: VERIFY, token, kind: 'status', status: 401 });
    expect((await whoami(h, token)).statusCode).toBe(401);
  });

  it('an app token (no user) is 401', async () => {
    const app = await h.social.client.request<{ client_id: string; client_secret: string }>(
      h.social.identityProvider.instanceFor(instance.host)!,
      {
        method: 'POST',
        path: '/api/v1/apps',
        body: { client_name: 'x', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' },
      },
    );
    const grant = await h.social.client.request<{ access_token: string }>(h.social.identityProvider.instanceFor(instance.host)!, {
      method: 'POST',
      path: '/oauth/token',
      body: { grant_type: 'client_credentials', client_id: app.body.client_id, client_secret: app.body.client_secret },
    });
    expect((await whoami(h, grant.body.access_token)).statusCode).toBe(401);
  });

  it.each([
    ['a 500', { kind: 'status', status: 500 }],
    ['a 404 (not a Mastodon API)', { kind: 'status', status: 404 }],
    ['slow headers', { kind: 'slow', delayMs: 5_000 }],
    ['a stalled body', { kind: 'stall-body' }],
    ['an oversized body', { kind: 'huge', bytes: 512 * 1024 }],
    ['bad JSON', { kind: 'bad-json' }],
    ['a redirect', { kind: 'redirect', location: 'https://mastodon.example/' }],
    ['an answer without an account', { kind: 'status', status: 200, body: { error: 'nope' } }],
  ] as const)('%s from the instance is 503 with the error body, and is not cached', async (_name, fault) => {
    const token = instance.issueToken('grace');
    instance.fault({ path: VERIFY, token, ...fault });
    const response = await whoami(h, token);
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ error: 'Service unavailable', status_code: 503, request_id: expect.any(String) as unknown });
    expect(response.json<{ message: string }>().message).toContain(instance.host);
    instance.clearFaults();
    expect((await whoami(h, token)).statusCode).toBe(200);
  });

  it('an instance that is down is 503', async () => {
    const gone = await startConnectionCounter();
    await gone.close();
    const response = await whoami(h, instance.token, `127.0.0.1:${gone.port}`);
    expect(response.statusCode).toBe(503);
  });

  it('without X-Social-Instance and without a default instance, no instance is asked: 401', async () => {
    const before = instance.requests.length;
    expect((await whoami(h, instance.token, null)).statusCode).toBe(401);
    expect(instance.requests.length).toBe(before);
  });

  it('service tokens come first, and service-shaped tokens never reach an instance', async () => {
    const service = await h.t.token(['read'], { userId: 'u1' });
    const before = instance.requests.length;
    expect((await whoami(h, service)).json()).toMatchObject({ userId: 'u1', source: 'service' });
    const revoked = `${service.slice(0, 10)}${'A'.repeat(service.length - 10)}`;
    expect((await whoami(h, revoked)).statusCode).toBe(401);
    expect(instance.requests.length).toBe(before);
  });

  it('never writes a token to the logs', async () => {
    const token = instance.issueToken('bob');
    await whoami(h, token);
    await whoami(h, `${token}x`);
    const logged = h.logs.join('');
    expect(logged.length).toBeGreaterThan(0);
    expect(logged).not.toContain(token);
  });
});

describe('Mastodon tokens: default instance and cache lifetime', () => {
  it('uses RECSVC_DEFAULT_INSTANCE when the header is absent', async () => {
    const h = await harness({ defaultInstance: instance.host });
    try {
      const response = await whoami(h, instance.token, null);
      expect(response.statusCode).toBe(200);
      expect(response.json<{ userId: string }>().userId).toBe(`${instance.accountIdOf(instance.token)}@${instance.host}`);
    } finally {
      await h.close();
    }
  });

  it('asks again once the cached answer is older than the TTL, and refusals expire sooner', async () => {
    let clock = 1_000_000;
    const h = await harness({ tokenCacheTtlMs: 300_000 }, () => clock);
    try {
      const token = instance.issueToken('carol');
      const before = instance.count(VERIFY);
      await whoami(h, token);
      clock += 299_000;
      await whoami(h, token);
      expect(instance.count(VERIFY)).toBe(before + 1);
      clock += 2_000;
      await whoami(h, token);
      expect(instance.count(VERIFY)).toBe(before + 2);
      // A token revoked at the instance stops working once the cache forgets it.
      instance.revokeToken(token);
      expect((await whoami(h, token)).statusCode).toBe(200);
      clock += 300_001;
      expect((await whoami(h, token)).statusCode).toBe(401);
      clock += 29_000;
      expect((await whoami(h, token)).statusCode).toBe(401);
      expect(instance.count(VERIFY)).toBe(before + 3);
      clock += 2_000;
      await whoami(h, token);
      expect(instance.count(VERIFY)).toBe(before + 4);
    } finally {
      await h.close();
    }
  });

  it('keeps at most the configured number of tokens', async () => {
    const h = await harness({ tokenCacheCapacity: 2 });
    try {
      const tokens = [instance.issueToken(1), instance.issueToken(2), instance.issueToken(4)];
      for (const token of tokens) await whoami(h, token);
      expect(h.social.identityProvider.cacheSize).toBe(2);
      const before = instance.count(VERIFY);
      await whoami(h, tokens[0] as string);
      expect(instance.count(VERIFY)).toBe(before + 1);
    } finally {
      await h.close();
    }
  });
});
