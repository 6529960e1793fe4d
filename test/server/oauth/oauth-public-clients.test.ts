/**
 * Browser and native clients on the service's own OAuth server:
 * - a public client (RFC 7591 `token_endpoint_auth_method: none`) gets no secret, redeems its
 *   code with the PKCE verifier alone (RFC 7636 S256), refreshes and revokes with its client_id;
 *   a wrong verifier is still refused, a secret from it is refused, and a confidential client
 *   still needs its secret;
 * - in drop-in mode, masto.js's token call (it posts to `/oauth/token` on the address it is
 *   given) and the browser's `/oauth/authorize` reach the service when they name its client;
 * - no Cross-Origin-Opener-Policy on the OAuth paths (it severs a login popup from its opener).
 */
import { createOAuthAPIClient } from 'masto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  apiCall,
  authorizeAndLogIn,
  createOAuthTestApp,
  FakeInstances,
  pkcePair,
  redeem,
  registerClient,
  REDIRECT_URI,
  type OAuthTestApp,
  type TestClient,
  type TokenAnswer,
} from './oauth-test-app.js';

const USER = '42@social.example';

let t: OAuthTestApp;
let instances: FakeInstances;

beforeEach(async () => {
  instances = new FakeInstances();
  t = await createOAuthTestApp({ gateway: instances });
});
afterEach(() => t.close());

async function registerPublic(): Promise<TestClient> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/v1/oauth/apps',
    payload: { client_name: 'Browser app', redirect_uris: [REDIRECT_URI], scopes: 'read write', token_endpoint_auth_method: 'none' },
  });
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json<Record<string, unknown>>();
  expect(body).not.toHaveProperty('client_secret');
  return { clientId: body.client_id as string, clientSecret: '', redirectUri: REDIRECT_URI };
}

function form(body: Record<string, string>, url = '/api/v1/oauth/token') {
  return t.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(body).toString(),
  });
}

describe('a public client (no secret, PKCE)', () => {
  it('redeems its code with client_id and the verifier alone, then refreshes and revokes', async () => {
    const client = await registerPublic();
    const { verifier, challenge } = pkcePair();
    const { code } = await authorizeAndLogIn(t, instances, client, { challenge });
    const base = { client_id: client.clientId, redirect_uri: REDIRECT_URI, grant_type: 'authorization_code', code };
    const wrong = await form({ ...base, code_verifier: pkcePair().verifier });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ error: 'invalid_grant' });
    // A public client's code proves nothing without its verifier, and a secret it never had is no credential.
    expect((await form({ ...base, code_verifier: verifier, client_secret: 'guessed' })).statusCode).toBe(401);
    const redeemed = await form({ ...base, code_verifier: verifier });
    expect(redeemed.statusCode, redeemed.body).toBe(200);
    const tokens = redeemed.json<TokenAnswer>();
    expect(await apiCall(t.app, tokens.access_token, USER)).toBe(200);
    const refreshed = await form({ client_id: client.clientId, grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const next = refreshed.json<TokenAnswer>();
    expect((await form({ client_id: client.clientId, token: next.access_token }, '/api/v1/oauth/revoke')).statusCode).toBe(200);
    expect(await apiCall(t.app, next.access_token, USER)).toBe(401);
  });

  it('is its own kind: a confidential client without its secret is still refused', async () => {
    const confidential = await registerClient(t.app);
    const { verifier, challenge } = pkcePair();
    const { code } = await authorizeAndLogIn(t, instances, confidential, { challenge });
    const response = await form({
      client_id: confidential.clientId,
      redirect_uri: REDIRECT_URI,
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ error: 'invalid_client' });
    expect((await redeem(t.app, confidential, code, verifier)).statusCode).toBe(200);
  });
});

describe('drop-in mode and the service’s own OAuth', () => {
  it("masto.js's token call to /oauth/token reaches the service for its client, and /oauth/authorize is sent to the service's", async () => {
    const client = await registerPublic();
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { verifier, challenge } = pkcePair();
    const authorize = await fetch(
      `${base}/oauth/authorize?${new URLSearchParams({ client_id: client.clientId, redirect_uri: REDIRECT_URI, response_type: 'code' }).toString()}`,
      { redirect: 'manual' },
    );
    expect(authorize.status).toBe(302);
    expect(authorize.headers.get('location')).toMatch(/^\/api\/v1\/oauth\/authorize\?client_id=/);
    const { code } = await authorizeAndLogIn(t, instances, client, { challenge });
    // masto.js 7 posts JSON to /oauth/token; its types still ask for a secret and know no code_verifier.
    const oauth = createOAuthAPIClient({ url: base });
    const token = await oauth.token.create({
      grantType: 'authorization_code',
      clientId: client.clientId,
      redirectUri: REDIRECT_URI,
      code,
      codeVerifier: verifier,
    } as unknown as Parameters<typeof oauth.token.create>[0]);
    expect(token.accessToken).toEqual(expect.any(String));
    expect(await apiCall(t.app, token.accessToken, USER)).toBe(200);
    const revoked = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: client.clientId, token: token.accessToken }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect(await apiCall(t.app, token.accessToken, USER)).toBe(401);
  });

  it("a client the service does not know is the instance's (forwarded, here: no instance, the app's 404)", async () => {
    const response = await form({ client_id: 'an-instance-client', grant_type: 'authorization_code', code: 'x' }, '/oauth/token');
    expect(response.statusCode).toBe(404);
  });
});

describe('security headers on the login flow', () => {
  it('leave Cross-Origin-Opener-Policy and -Resource-Policy off the OAuth paths only', async () => {
    const client = await registerPublic();
    for (const url of [
      `/api/v1/oauth/authorize?client_id=${client.clientId}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`,
      '/oauth/authorize?client_id=unknown',
    ]) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.headers['cross-origin-opener-policy'], url).toBeUndefined();
      expect(response.headers['cross-origin-resource-policy'], url).toBeUndefined();
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
    }
    const health = await t.app.inject({ method: 'GET', url: '/api/v1/health' });
    expect(health.headers['cross-origin-opener-policy']).toBe('same-origin');
  });
});
