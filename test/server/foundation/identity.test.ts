import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerIdentity } from '../../../server/platform/plugins/access.js';
import type { IdentityProvider } from '../../../server/platform/auth/identity-providers.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

/** Stands in for the coming social-instance provider: vouches for one token when an instance is named. */
const socialStub: IdentityProvider = {
  name: 'social-stub',
  async resolve(token, context) {
    if (token !== 'mastodon-user-token' || context.socialInstance !== 'social.example') return undefined;
    return {
      kind: 'authenticated',
      userId: 'acct-42',
      scopes: new Set(['read']),
      tier: 'authenticated',
      source: 'social',
      subjectKey: 'social:acct-42',
    };
  },
};

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    identityProviders: [socialStub],
    configure: (app) =>
      void app.get('/api/v1/test/me', { config: { access: { scope: 'read' } } }, async (request) => {
        const identity = callerIdentity(request);
        return { user: identity.userId, source: identity.source };
      }),
  });
});
afterAll(() => t.close());

describe('identity providers', () => {
  it('accepts identities from an added provider, keyed to the instance header', async () => {
    const ok = await t.app.inject({
      method: 'GET',
      url: '/api/v1/test/me',
      headers: { authorization: 'Bearer mastodon-user-token', 'x-social-instance': 'social.example' },
    });
    expect(ok.json()).toEqual({ user: 'acct-42', source: 'social' });
    const wrongInstance = await t.app.inject({
      method: 'GET',
      url: '/api/v1/test/me',
      headers: { authorization: 'Bearer mastodon-user-token', 'x-social-instance': 'other.example' },
    });
    expect(wrongInstance.statusCode).toBe(401);
  });

  it('still accepts service tokens first', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/test/me', headers: await t.userHeaders('u7') });
    expect(response.json()).toEqual({ user: 'u7', source: 'service' });
  });
});
