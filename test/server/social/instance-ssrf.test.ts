/**
 * Server-side request forgery through `X-Social-Instance`: every spelling of a loopback,
 * private or local host, a name that resolves to one (stubbed resolver), and a redirect
 * to loopback are refused, and a listener on 127.0.0.1 proves no connection reached it.
 * Private and link-local addresses are never connected to: the resolver stub and the
 * address check are what is exercised.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolver } from '../../../server/platform/social/instance-address.js';
import { createSocialServices, type SocialServices } from '../../../server/platform/social/social.service.js';
import { DEFAULT_SOCIAL_OPTIONS } from '../../../server/platform/social/social-options.js';
import {
  loopbackSpellings,
  startConnectionCounter,
  startMastodonInstance,
  withSocial,
  type ConnectionCounter,
  type MastodonTestInstance,
} from '../../helpers/mastodon-instance.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

let counter: ConnectionCounter;

beforeAll(async () => {
  counter = await startConnectionCounter();
});

afterAll(async () => {
  await counter.close();
});

/** DNS as an attacker would arrange it: public-looking names that point inside. */
const resolver: Resolver = (hostname) =>
  Promise.resolve(
    {
      'evil.example': [{ address: '127.0.0.1', family: 4 as const }],
      'evil6.example': [{ address: '::1', family: 6 as const }],
      'mapped.example': [{ address: '::ffff:127.0.0.1', family: 6 as const }],
      'intranet.example': [{ address: '192.168.0.10', family: 4 as const }],
      'cgnat.example': [{ address: '100.64.0.1', family: 4 as const }],
      'metadata.example': [{ address: '169.254.169.254', family: 4 as const }],
      'linklocal6.example': [{ address: 'fe80::1', family: 6 as const }],
      'rebind.example': [
        { address: '93.184.216.34', family: 4 as const },
        { address: '127.0.0.1', family: 4 as const },
      ],
    }[hostname] ?? [],
  );

async function appWith(social: SocialServices): Promise<TestApp> {
  return createTestApp({
    ...withSocial(social),
    configure: (app) => {
      app.get('/test/whoami', { config: { access: { scope: 'read' } } }, async (request) => ({ kind: request.identity.kind }));
    },
  });
}

describe('X-Social-Instance in secure mode (the default)', () => {
  let social: SocialServices;
  let t: TestApp;
  beforeAll(async () => {
    social = createSocialServices(DEFAULT_SOCIAL_OPTIONS, { resolver });
    t = await appWith(social);
  });
  afterAll(async () => {
    await t.close();
    await social.close();
  });

  const ask = (value: string) =>
    t.app.inject({
      method: 'GET',
      url: '/test/whoami',
      headers: { authorization: 'Bearer some-mastodon-token', 'x-social-instance': value },
    });

  it('refuses every spelling of a loopback, private or local host with 400 on the header, connecting nowhere', async () => {
    for (const value of loopbackSpellings(counter.port)) {
      const response = await ask(value);
      expect(response.statusCode, value).toBe(400);
      expect(response.json(), value).toMatchObject({ error: 'Invalid request', field: 'X-Social-Instance', status_code: 400 });
    }
    expect(counter.connections).toBe(0);
  });

  it('refuses names that resolve to loopback, private, link-local or metadata addresses, at connect time', async () => {
    for (const name of [
      'evil.example',
      'evil6.example',
      'mapped.example',
      'intranet.example',
      'cgnat.example',
      'metadata.example',
      'linklocal6.example',
      'rebind.example',
    ]) {
      const response = await ask(`${name}:${counter.port}`);
      expect(response.statusCode, name).toBe(400);
      expect(response.json<{ message: string }>().message, name).toContain('resolves to a loopback, private');
    }
    expect(counter.connections).toBe(0);
  });

  it('a name that does not resolve is 503 (unreachable), not a hang', async () => {
    const response = await ask('nowhere.example');
    expect(response.statusCode).toBe(503);
  });

  it('service tokens do not care about the header', async () => {
    const service = await t.userHeaders('u1');
    const response = await t.app.inject({ method: 'GET', url: '/test/whoami', headers: { ...service, 'x-social-instance': '127.0.0.1' } });
    expect(response.statusCode).toBe(200);
  });
});

describe('redirects', () => {
  let instance: MastodonTestInstance;
  let social: SocialServices;
  let t: TestApp;
  beforeAll(async () => {
    instance = await startMastodonInstance();
    social = createSocialServices({ ...DEFAULT_SOCIAL_OPTIONS, allowInsecure: true });
    t = await appWith(social);
  });
  afterAll(async () => {
    await t.close();
    await social.close();
    await instance.close();
  });

  it('a redirect to loopback is refused (503) and nothing reaches the target', async () => {
    for (const status of [301, 302, 303, 307, 308]) {
      instance.fault({
        path: '/api/v1/accounts/verify_credentials',
        kind: 'redirect',
        status,
        location: `http://127.0.0.1:${counter.port}/api/v1/accounts/verify_credentials`,
        times: 1,
      });
      const response = await t.app.inject({
        method: 'GET',
        url: '/test/whoami',
        headers: { authorization: `Bearer ${instance.issueToken()}`, 'x-social-instance': instance.host },
      });
      expect(response.statusCode).toBe(503);
    }
    expect(counter.connections).toBe(0);
  });
});

describe('insecure mode', () => {
  it('reaches the test instance over plain HTTP on 127.0.0.1', async () => {
    const instance = await startMastodonInstance();
    const social = createSocialServices({ ...DEFAULT_SOCIAL_OPTIONS, allowInsecure: true });
    const t = await appWith(social);
    try {
      const response = await t.app.inject({
        method: 'GET',
        url: '/test/whoami',
        headers: { authorization: `Bearer ${instance.token}`, 'x-social-instance': instance.host },
      });
      expect(response.json()).toEqual({ kind: 'authenticated' });
      expect(instance.count('/api/v1/accounts/verify_credentials')).toBe(1);
    } finally {
      await t.close();
      await social.close();
      await instance.close();
    }
  });
});
