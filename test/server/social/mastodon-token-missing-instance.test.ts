/**
 * A Mastodon token sent without `X-Social-Instance` (and no default instance configured) is
 * refused with a 401 that names the missing header in the spec's error body (`field`), not
 * with "token invalid": the token may be good, the request does not say where to check it.
 * Public routes still answer such a request; service tokens keep their own message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SocialServices } from '../../../server/platform/social/social.service.js';
import { startMastodonInstance, testSocialServices, withSocial, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

let instance: MastodonTestInstance;
let social: SocialServices;
let t: TestApp;

beforeAll(async () => {
  instance = await startMastodonInstance();
  social = testSocialServices();
  t = await createTestApp(withSocial(social));
});

afterAll(async () => {
  await t.close();
  await social.close();
  await instance.close();
});

describe('a Mastodon token without X-Social-Instance', () => {
  it('is 401 naming X-Social-Instance on the service’s own routes, and no instance is asked', async () => {
    instance.resetCounts();
    for (const url of ['/api/v1/privacy/export', '/api/v1/recommendations', '/api/v1/timelines/home']) {
      const response = await t.app.inject({ url, headers: { authorization: `Bearer ${instance.token}` } });
      expect(response.statusCode, url).toBe(401);
      const body = response.json();
      expect(body, url).toMatchObject({ error: 'Authentication required', field: 'X-Social-Instance', status_code: 401 });
      expect(body.message, url).toContain('X-Social-Instance');
      expect(response.headers['www-authenticate'], url).toBe('Bearer realm="recsvc", error="invalid_token"');
    }
    expect(instance.count()).toBe(0);
  });

  it('is 401 naming X-Social-Instance in drop-in mode too', async () => {
    const response = await t.app.inject({ url: '/api/v1/notifications', headers: { authorization: `Bearer ${instance.token}` } });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ error: 'Authentication required', field: 'X-Social-Instance' });
  });

  it('is the same token that works once the header names its instance', async () => {
    const response = await t.app.inject({
      url: '/api/v1/privacy/export',
      headers: { authorization: `Bearer ${instance.token}`, 'x-social-instance': instance.host },
    });
    expect(response.statusCode, response.body).toBe(200);
  });

  it('still gets an answer from a public route', async () => {
    const response = await t.app.inject({ url: '/api/v1/health', headers: { authorization: `Bearer ${instance.token}` } });
    expect(response.statusCode).toBe(200);
  });

  it('leaves a service-shaped token’s refusal as it was: invalid, no field', async () => {
    const service = await t.token(['read'], { userId: 'u1' });
    const revoked = `${service.slice(0, 10)}${'A'.repeat(service.length - 10)}`;
    const response = await t.app.inject({ url: '/api/v1/privacy/export', headers: { authorization: `Bearer ${revoked}` } });
    expect(response.statusCode).toBe(401);
    expect(response.json().field).toBeUndefined();
    expect(response.json().message).toBe('The bearer token is invalid, expired or revoked');
  });
});
