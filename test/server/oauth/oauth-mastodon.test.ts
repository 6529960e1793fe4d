/**
 * The OAuth flow against the Mastodon-compatible test instance (test/helpers/mastodon-instance.ts)
 * over real HTTP, through the social client (insecure mode: plain HTTP to 127.0.0.1): the
 * service registers itself there, the instance logs the user in and sends them back, the
 * service exchanges the instance's code and reads verify_credentials, and the client's token
 * then works on the service's API as the same user a Mastodon token of theirs would be.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { socialInstanceGateway } from '../../../server/oauth/instance-client-gateway.js';
import { createSocialServices, DEFAULT_SOCIAL_OPTIONS, type SocialServices } from '../../../server/platform/social/social.service.js';
import { startMastodonInstance, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import {
  answerConsent,
  apiCall,
  authorizeUrl,
  consentTicket,
  createOAuthTestApp,
  locationOf,
  pkcePair,
  redeem,
  registerClient,
  type OAuthTestApp,
  type TestClient,
  type TokenAnswer,
} from './oauth-test-app.js';

let instance: MastodonTestInstance;
let social: SocialServices;
let t: OAuthTestApp;
let client: TestClient;

beforeAll(async () => {
  instance = await startMastodonInstance();
  social = createSocialServices({ ...DEFAULT_SOCIAL_OPTIONS, allowInsecure: true });
});
afterAll(async () => {
  await social.close();
  await instance.close();
});
beforeEach(async () => {
  instance.clearFaults();
  t = await createOAuthTestApp({ gateway: socialInstanceGateway(social), settings: { defaultInstance: instance.host } });
  client = await registerClient(t.app);
});
afterEach(() => t.close());

/** Follows the trip: the service's authorize, the instance's login page, the service's callback and consent page (approved); the final redirect. */
async function logIn(challenge: string, params: Record<string, string | undefined> = {}): Promise<URL> {
  const toInstance = locationOf(
    await t.app.inject({ method: 'GET', url: authorizeUrl(client, { code_challenge: challenge, instance: undefined, ...params }) }),
  );
  expect(toInstance.origin).toBe(instance.origin);
  const atInstance = await fetch(toInstance, { redirect: 'manual' });
  expect(atInstance.status).toBe(302);
  const callback = new URL(atInstance.headers.get('location')!);
  expect(callback.pathname).toBe('/api/v1/oauth/callback');
  const back = await t.app.inject({ method: 'GET', url: `${callback.pathname}${callback.search}` });
  if (back.statusCode !== 200) return locationOf(back); // a failure at the instance goes straight back to the client
  expect(back.body).toContain(`@${String(instance.accounts[0]!.acct)}@${instance.host}`);
  return locationOf(await answerConsent(t.app, consentTicket(back), 'approve'), 303);
}

describe('OAuth through a Mastodon instance', () => {
  it('logs the user in at the instance and issues a token that acts as their Mastodon identity', async () => {
    const { verifier, challenge } = pkcePair();
    const back = await logIn(challenge);
    expect(back.searchParams.get('state')).toBe('client-state-1');
    const response = await redeem(t.app, client, back.searchParams.get('code')!, verifier);
    expect(response.statusCode, response.body).toBe(200);
    const tokens = response.json<TokenAnswer>();

    // The same user id as the instance's own token for that account gets from the Mastodon-token provider.
    const verified = await social.identityProvider.verify(instance.token, instance.host);
    const userId = verified!.identity.userId!;
    expect(userId).toBe(`${String(instance.accounts[0]!.id)}@${instance.host}`);
    expect(await apiCall(t.app, tokens.access_token, userId)).toBe(200);

    // The service registered itself once, asking only to read the account.
    expect(instance.count('/api/v1/apps', 'POST')).toBe(1);
    await logIn(pkcePair().challenge);
    expect(instance.count('/api/v1/apps', 'POST')).toBe(1);
  });

  it('sends the client temporarily_unavailable when the instance fails the code exchange', async () => {
    instance.fault({ kind: 'status', status: 500, path: '/oauth/token', times: 1 });
    const back = await logIn(pkcePair().challenge);
    expect(back.searchParams.get('error')).toBe('temporarily_unavailable');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('sends the client access_denied when the instance refuses the token it just gave', async () => {
    instance.fault({ kind: 'status', status: 401, path: '/api/v1/accounts/verify_credentials', times: 1 });
    const back = await logIn(pkcePair().challenge);
    expect(back.searchParams.get('error')).toBe('access_denied');
  });

  it('without the insecure setting, never connects to a loopback instance', async () => {
    const strict = createSocialServices(DEFAULT_SOCIAL_OPTIONS);
    const other = await createOAuthTestApp({ gateway: socialInstanceGateway(strict) });
    try {
      const otherClient = await registerClient(other.app);
      instance.resetCounts();
      for (const name of [instance.host, 'localhost', `localhost:${instance.port}`, '2130706433']) {
        const response = await other.app.inject({
          method: 'GET',
          url: authorizeUrl(otherClient, { code_challenge: pkcePair().challenge, instance: name }),
        });
        expect(locationOf(response).searchParams.get('error')).toBe('invalid_request');
      }
      expect(instance.count()).toBe(0);
    } finally {
      await other.close();
      await strict.close();
    }
  });
});
