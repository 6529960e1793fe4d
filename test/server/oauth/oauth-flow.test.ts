/**
 * The service's own OAuth 2.0 server over real HTTP (inject) and a real SQLite database, with
 * the user's instance behind the gateway interface: the whole flow ending in an API call with
 * the issued token, and each refusal (codes, PKCE, redirect URIs, expiry, refresh rotation and
 * reuse, revocation, client authentication).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  answerConsent,
  apiCall,
  authorizeAndLogIn,
  authorizeUrl,
  basic,
  consentTicket,
  createOAuthTestApp,
  everyStoredText,
  FakeInstances,
  locationOf,
  pkcePair,
  redeem,
  registerClient,
  tokenRequest,
  REDIRECT_URI,
  type OAuthTestApp,
  type TestClient,
  type TokenAnswer,
} from './oauth-test-app.js';

const USER = '42@social.example';
const DAY_MS = 86_400_000;

let t: OAuthTestApp;
let instances: FakeInstances;
let client: TestClient;
/** The OAuth feature's clock: real time plus this offset. */
let offsetMs = 0;

beforeEach(async () => {
  offsetMs = 0;
  instances = new FakeInstances();
  t = await createOAuthTestApp({ gateway: instances, now: () => Date.now() + offsetMs });
  client = await registerClient(t.app);
});
afterEach(() => t.close());

async function tokensFor(accountId = '42'): Promise<TokenAnswer> {
  const { verifier, challenge } = pkcePair();
  const { code } = await authorizeAndLogIn(t, instances, client, { accountId, challenge });
  const response = await redeem(t.app, client, code, verifier);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<TokenAnswer>();
}

async function refresh(refreshToken: string, extra: Record<string, string> = {}) {
  return tokenRequest(t.app, client, { grant_type: 'refresh_token', refresh_token: refreshToken, ...extra });
}

function expectOAuthError(response: { statusCode: number; json: <T>() => T; body: string }, status: number, error: string): void {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json<{ error: string; error_description: string; request_id: string; status_code: number }>();
  expect(body.error).toBe(error);
  expect(body.error_description.length).toBeGreaterThan(0);
  expect(body.status_code).toBe(status);
}

describe('the authorization code flow, end to end', () => {
  it('sends the user to their instance, comes back with a code, and issues tokens the API accepts', async () => {
    const { verifier, challenge } = pkcePair();
    const start = await t.app.inject({ method: 'GET', url: authorizeUrl(client, { code_challenge: challenge }) });
    const toInstance = locationOf(start);
    expect(start.headers['cache-control']).toBe('no-store');
    expect(toInstance.origin).toBe('https://social.example');
    expect(toInstance.pathname).toBe('/oauth/authorize');
    // The service registered itself there once, with its own callback, asking only to read the account.
    expect(instances.registrations).toEqual([
      { instance: 'social.example', redirectUri: 'http://localhost/api/v1/oauth/callback', scopes: 'read:accounts' },
    ]);
    expect(toInstance.searchParams.get('client_id')).toBe('svc-app-1');
    expect(toInstance.searchParams.get('redirect_uri')).toBe('http://localhost/api/v1/oauth/callback');
    expect(toInstance.searchParams.get('scope')).toBe('read:accounts');
    const state = toInstance.searchParams.get('state')!;
    expect(state.length).toBeGreaterThanOrEqual(43);

    const back = await t.app.inject({ method: 'GET', url: `/api/v1/oauth/callback?code=${instances.approve('42')}&state=${state}` });
    const ticket = consentTicket(back);
    const toClient = locationOf(await answerConsent(t.app, ticket, 'approve'), 303);
    expect(`${toClient.origin}${toClient.pathname}`).toBe('https://client.example/callback');
    expect(toClient.searchParams.get('app')).toBe('1'); // the redirect URI's own query is kept
    expect(toClient.searchParams.get('state')).toBe('client-state-1');
    const code = toClient.searchParams.get('code')!;

    const response = await redeem(t.app, client, code, verifier);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers.pragma).toBe('no-cache');
    const tokens = response.json<TokenAnswer>();
    expect(tokens).toEqual({
      access_token: expect.stringMatching(/^rsv_/),
      refresh_token: expect.stringMatching(/^rsr_/),
      token_type: 'Bearer',
      expires_in: 86_400,
      scope: 'read write',
      created_at: expect.any(Number),
    });

    expect(await apiCall(t.app, tokens.access_token, USER)).toBe(200);
    expect(await apiCall(t.app, tokens.access_token, '7@social.example')).toBe(403); // only the user's own data

    // A second login on the same instance reuses the stored registration.
    await tokensFor('43');
    expect(instances.registrations).toHaveLength(1);

    // Codes, tokens, refresh tokens, secrets and states are stored only as hashes.
    const stored = await everyStoredText(t.database);
    for (const secretValue of [code, tokens.access_token, tokens.refresh_token, client.clientSecret, state, ticket]) {
      expect(stored).not.toContain(secretValue);
    }
  });

  it('accepts JSON bodies and client credentials in the body as well as form bodies and HTTP Basic', async () => {
    const { verifier, challenge } = pkcePair();
    const { code } = await authorizeAndLogIn(t, instances, client, { challenge });
    const response = await tokenRequest(
      t.app,
      client,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier },
      { form: false, inBody: true },
    );
    expect(response.statusCode, response.body).toBe(200);
  });

  it('uses the configured public URL for the callback and publishes RFC 8414 metadata', async () => {
    await t.close();
    t = await createOAuthTestApp({ gateway: instances, publicUrl: 'https://recs.example.org' });
    client = await registerClient(t.app);
    const { challenge } = pkcePair();
    const toInstance = locationOf(await t.app.inject({ method: 'GET', url: authorizeUrl(client, { code_challenge: challenge }) }));
    expect(toInstance.searchParams.get('redirect_uri')).toBe('https://recs.example.org/api/v1/oauth/callback');

    const metadata = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(metadata.statusCode).toBe(200);
    expect(metadata.json()).toMatchObject({
      issuer: 'https://recs.example.org',
      authorization_endpoint: 'https://recs.example.org/api/v1/oauth/authorize',
      token_endpoint: 'https://recs.example.org/api/v1/oauth/token',
      revocation_endpoint: 'https://recs.example.org/api/v1/oauth/revoke',
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      scopes_supported: expect.arrayContaining(['read', 'write']),
    });
  });
});

describe('client registration', () => {
  it('answers in Mastodon shape, the secret stored only as a hash', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/oauth/apps',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'client_name=Elk&redirect_uris=https%3A%2F%2Felk.example%2Fcb&scopes=read+write&website=https%3A%2F%2Felk.zone',
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      id: expect.any(String),
      name: 'Elk',
      website: 'https://elk.zone',
      scopes: ['read', 'write'],
      redirect_uri: 'https://elk.example/cb',
      redirect_uris: ['https://elk.example/cb'],
      client_id: expect.any(String),
      client_secret: expect.any(String),
      client_secret_expires_at: 0,
    });
    expect(await everyStoredText(t.database)).not.toContain(response.json<{ client_secret: string }>().client_secret);
  });

  it.each([
    ['urn:ietf:wg:oauth:2.0:oob', 'invalid_redirect_uri'],
    ['javascript:alert(1)', 'invalid_redirect_uri'],
    ['https://client.example/cb#frag', 'invalid_redirect_uri'],
    ['not a uri', 'invalid_redirect_uri'],
  ])('refuses the redirect URI %s', async (uri, error) => {
    const response = await t.app.inject({ method: 'POST', url: '/api/v1/oauth/apps', payload: { client_name: 'x', redirect_uris: uri } });
    expectOAuthError(response, 400, error);
  });

  it('refuses admin and unknown scopes, and a missing client_name', async () => {
    const admin = await t.app.inject({
      method: 'POST',
      url: '/api/v1/oauth/apps',
      payload: { client_name: 'x', redirect_uris: REDIRECT_URI, scopes: 'read admin' },
    });
    expectOAuthError(admin, 400, 'invalid_scope');
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/v1/oauth/apps',
      payload: { client_name: 'x', redirect_uris: REDIRECT_URI, scopes: 'everything' },
    });
    expectOAuthError(unknown, 400, 'invalid_scope');
    const nameless = await t.app.inject({ method: 'POST', url: '/api/v1/oauth/apps', payload: { redirect_uris: REDIRECT_URI } });
    expectOAuthError(nameless, 400, 'invalid_request');
  });
});

describe('the authorization endpoint refuses', () => {
  const challenge = pkcePair().challenge;

  it('an unknown client or an unregistered redirect URI itself (400), never redirecting there', async () => {
    const unknown = await t.app.inject({
      method: 'GET',
      url: authorizeUrl({ ...client, clientId: 'nobody' }, { code_challenge: challenge }),
    });
    expectOAuthError(unknown, 400, 'invalid_request');
    expect(unknown.headers.location).toBeUndefined();
    for (const redirectUri of ['https://evil.example/callback', 'https://client.example/callback', `${REDIRECT_URI}&x=1`]) {
      const response = await t.app.inject({ method: 'GET', url: authorizeUrl({ ...client, redirectUri }, { code_challenge: challenge }) });
      expectOAuthError(response, 400, 'invalid_request');
      expect(response.headers.location).toBeUndefined();
    }
    expect(instances.registrations).toEqual([]);
  });

  it.each([
    ['no PKCE challenge', { code_challenge: undefined }, 'invalid_request'],
    ['the plain method', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['no method (plain by default)', { code_challenge_method: undefined }, 'invalid_request'],
    ['a challenge that is no S256 digest', { code_challenge: 'short' }, 'invalid_request'],
    ['another response type', { response_type: 'token' }, 'unsupported_response_type'],
    ['scopes beyond the registered ones', { scope: 'read profile' }, 'invalid_scope'],
    ['the admin scope', { scope: 'admin' }, 'invalid_scope'],
    ['an instance the service will not connect to', { instance: '127.0.0.1' }, 'invalid_request'],
    ['no instance and no default instance', { instance: undefined }, 'invalid_request'],
  ])('%s, redirecting the error to the client with its state', async (_name, params, error) => {
    const response = await t.app.inject({ method: 'GET', url: authorizeUrl(client, { code_challenge: challenge, ...params }) });
    const location = locationOf(response);
    expect(`${location.origin}${location.pathname}`).toBe('https://client.example/callback');
    expect(location.searchParams.get('error')).toBe(error);
    expect(location.searchParams.get('error_description')).toBeTruthy();
    expect(location.searchParams.get('state')).toBe('client-state-1');
    expect(location.searchParams.get('code')).toBeNull();
  });

  it('an instance that cannot be reached: temporarily_unavailable, and the next attempt registers', async () => {
    instances.failNext.registerApp = 'unavailable';
    const response = await t.app.inject({ method: 'GET', url: authorizeUrl(client, { code_challenge: challenge }) });
    expect(locationOf(response).searchParams.get('error')).toBe('temporarily_unavailable');
    const again = await t.app.inject({ method: 'GET', url: authorizeUrl(client, { code_challenge: challenge }) });
    expect(locationOf(again).origin).toBe('https://social.example');
  });
});

describe('the callback from the instance', () => {
  async function startLogin(): Promise<string> {
    const toInstance = locationOf(
      await t.app.inject({ method: 'GET', url: authorizeUrl(client, { code_challenge: pkcePair().challenge }) }),
    );
    return toInstance.searchParams.get('state')!;
  }

  it('refuses an unknown, missing or already used state with 400', async () => {
    expectOAuthError(await t.app.inject({ method: 'GET', url: '/api/v1/oauth/callback?code=x&state=forged' }), 400, 'invalid_request');
    expectOAuthError(await t.app.inject({ method: 'GET', url: '/api/v1/oauth/callback?code=x' }), 400, 'invalid_request');
    const state = await startLogin();
    consentTicket(await t.app.inject({ method: 'GET', url: `/api/v1/oauth/callback?code=${instances.approve('42')}&state=${state}` }));
    expectOAuthError(
      await t.app.inject({ method: 'GET', url: `/api/v1/oauth/callback?code=${instances.approve('42')}&state=${state}` }),
      400,
      'invalid_request',
    );
  });

  it('refuses a login that took longer than 10 minutes', async () => {
    const state = await startLogin();
    offsetMs = 10 * 60_000;
    expectOAuthError(
      await t.app.inject({ method: 'GET', url: `/api/v1/oauth/callback?code=${instances.approve('42')}&state=${state}` }),
      400,
      'invalid_request',
    );
  });

  it.each([
    ['the user denied access at the instance', (state: string) => `error=access_denied&state=${state}`, undefined, 'access_denied'],
    ['the instance refuses its own code', (state: string) => `code=forged&state=${state}`, undefined, 'access_denied'],
    [
      'the instance is down during the exchange',
      (state: string) => `code=x&state=${state}`,
      'unavailable' as const,
      'temporarily_unavailable',
    ],
  ])('sends the client an error when %s', async (_name, query, failure, error) => {
    const state = await startLogin();
    if (failure) instances.failNext.exchangeCode = failure;
    const location = locationOf(await t.app.inject({ method: 'GET', url: `/api/v1/oauth/callback?${query(state)}` }));
    expect(location.searchParams.get('error')).toBe(error);
    expect(location.searchParams.get('state')).toBe('client-state-1');
    expect(location.searchParams.get('code')).toBeNull();
  });
});

describe('the token endpoint: authorization codes', () => {
  it('refuses a code used twice, and revokes the tokens issued for it', async () => {
    const { verifier, challenge } = pkcePair();
    const { code } = await authorizeAndLogIn(t, instances, client, { challenge });
    const first = (await redeem(t.app, client, code, verifier)).json<TokenAnswer>();
    expect(await apiCall(t.app, first.access_token, USER)).toBe(200);

    expectOAuthError(await redeem(t.app, client, code, verifier), 400, 'invalid_grant');
    expect(await apiCall(t.app, first.access_token, USER)).toBe(401);
    expectOAuthError(await refresh(first.refresh_token), 400, 'invalid_grant');
  });

  it('lets exactly one of 10 parallel redemptions of one code succeed', async () => {
    const { verifier, challenge } = pkcePair();
    const { code } = await authorizeAndLogIn(t, instances, client, { challenge });
    const responses = await Promise.all(Array.from({ length: 10 }, () => redeem(t.app, client, code, verifier)));
    const won = responses.filter((response) => response.statusCode === 200);
    expect(won).toHaveLength(1);
    for (const response of responses.filter((r) => r.statusCode !== 200)) expectOAuthError(response, 400, 'invalid_grant');
    // The other nine were redemptions of a spent code: the winner's tokens are revoked too.
    expect(await apiCall(t.app, won[0]!.json<TokenAnswer>().access_token, USER)).toBe(401);
    const families = await t.database.db
      .selectFrom('oauth_token_families' as never)
      .selectAll()
      .execute();
    expect(families).toHaveLength(1);
  });

  it('refuses a missing or wrong PKCE verifier (without spending the code)', async () => {
    const { verifier, challenge } = pkcePair();
    const { code } = await authorizeAndLogIn(t, instances, client, { challenge });
    const missing = await tokenRequest(t.app, client, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI });
    expectOAuthError(missing, 400, 'invalid_grant');
    expectOAuthError(await redeem(t.app, client, code, pkcePair().verifier), 400, 'invalid_grant');
    expectOAuthError(await redeem(t.app, client, code, challenge), 400, 'invalid_grant'); // the challenge itself ("plain")
    expect((await redeem(t.app, client, code, verifier)).statusCode).toBe(200);
  });

  it('refuses a redirect URI that differs from the authorization request, even one registered', async () => {
    const { verifier, challenge } = pkcePair();
    const { code } = await authorizeAndLogIn(t, instances, client, { challenge });
    for (const redirectUri of ['com.example.app:/oauth', 'https://client.example/callback', `${REDIRECT_URI}/`]) {
      const response = await tokenRequest(t.app, client, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      });
      expectOAuthError(response, 400, 'invalid_grant');
    }
  });

  it('refuses a code after 10 minutes', async () => {
    const { verifier, challenge } = pkcePair();
    const { code } = await authorizeAndLogIn(t, instances, client, { challenge });
    offsetMs = 10 * 60_000;
    expectOAuthError(await redeem(t.app, client, code, verifier), 400, 'invalid_grant');
  });

  it("refuses another client's code", async () => {
    const { verifier, challenge } = pkcePair();
    const { code } = await authorizeAndLogIn(t, instances, client, { challenge });
    const other = await registerClient(t.app);
    expectOAuthError(await redeem(t.app, other, code, verifier), 400, 'invalid_grant');
    expect((await redeem(t.app, client, code, verifier)).statusCode).toBe(200);
  });
});

describe('the token endpoint: client authentication and requests', () => {
  it('refuses a wrong client secret with 401 invalid_client and a Basic challenge', async () => {
    for (const response of [
      await tokenRequest(t.app, client, { grant_type: 'refresh_token', refresh_token: 'x' }, { secret: 'wrong' }),
      await tokenRequest(t.app, client, { grant_type: 'refresh_token', refresh_token: 'x' }, { secret: 'wrong', inBody: true }),
      await t.app.inject({ method: 'POST', url: '/api/v1/oauth/token', payload: { grant_type: 'refresh_token', refresh_token: 'x' } }),
    ]) {
      expectOAuthError(response, 401, 'invalid_client');
      expect(response.headers['www-authenticate']).toMatch(/^Basic realm="recsvc"/);
    }
  });

  it('refuses credentials sent both ways, unknown and missing grant types, and malformed bodies', async () => {
    const both = await t.app.inject({
      method: 'POST',
      url: '/api/v1/oauth/token',
      headers: { authorization: basic(client) },
      payload: { grant_type: 'refresh_token', refresh_token: 'x', client_secret: client.clientSecret },
    });
    expectOAuthError(both, 400, 'invalid_request');
    expectOAuthError(
      await tokenRequest(t.app, client, { grant_type: 'password', username: 'a', password: 'b' }),
      400,
      'unsupported_grant_type',
    );
    expectOAuthError(await tokenRequest(t.app, client, {}), 400, 'invalid_request');
    const repeated = await t.app.inject({
      method: 'POST',
      url: '/api/v1/oauth/token',
      headers: { authorization: basic(client), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=refresh_token&refresh_token=a&refresh_token=b',
    });
    expectOAuthError(repeated, 400, 'invalid_request');
    const wrongType = await t.app.inject({
      method: 'POST',
      url: '/api/v1/oauth/token',
      headers: { authorization: basic(client) },
      payload: { grant_type: 5 },
    });
    expectOAuthError(wrongType, 400, 'invalid_request');
    const text = await t.app.inject({
      method: 'POST',
      url: '/api/v1/oauth/token',
      headers: { 'content-type': 'text/plain' },
      payload: 'grant_type=x',
    });
    expectOAuthError(text, 415, 'invalid_request');
  });
});

describe('errors that are not about the OAuth request', () => {
  it('keep the service error body: a 429 on the token endpoint', async () => {
    await t.close();
    const oneAMinute = [{ seconds: 60, max: 1 }];
    t = await createOAuthTestApp({
      gateway: instances,
      rateLimit: {
        tiers: { anonymous: oneAMinute, authenticated: oneAMinute, premium: oneAMinute },
        groups: { recommendations: [], analytics: [], rag: [] },
      },
    });
    const request = () =>
      t.app.inject({ method: 'POST', url: '/api/v1/oauth/token', payload: { grant_type: 'refresh_token', refresh_token: 'x' } });
    expectOAuthError(await request(), 401, 'invalid_client');
    const limited = await request();
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ error: 'Rate limit exceeded', status_code: 429, retry_after: expect.any(Number) });
    expect(limited.headers['retry-after']).toBeDefined();
  });
});

describe('refresh tokens', () => {
  it('rotate: each refresh gives new tokens and spends the refresh token used', async () => {
    const first = await tokensFor();
    const response = await refresh(first.refresh_token);
    expect(response.statusCode, response.body).toBe(200);
    const second = response.json<TokenAnswer>();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.expires_in).toBe(86_400);
    expect(await apiCall(t.app, second.access_token, USER)).toBe(200);
    const third = (await refresh(second.refresh_token)).json<TokenAnswer>();
    expect(await apiCall(t.app, third.access_token, USER)).toBe(200);
  });

  it('reused, revoke the whole family: the rotated access token stops working at once', async () => {
    const first = await tokensFor();
    const second = (await refresh(first.refresh_token)).json<TokenAnswer>();
    expect(await apiCall(t.app, second.access_token, USER)).toBe(200); // now in the verifier's cache
    expect(await apiCall(t.app, first.access_token, USER)).toBe(200);

    expectOAuthError(await refresh(first.refresh_token), 400, 'invalid_grant');
    expect(await apiCall(t.app, second.access_token, USER)).toBe(401);
    expect(await apiCall(t.app, first.access_token, USER)).toBe(401);
    expectOAuthError(await refresh(second.refresh_token), 400, 'invalid_grant');
  });

  it('may narrow the scope, never widen it', async () => {
    const first = await tokensFor();
    const narrowed = await refresh(first.refresh_token, { scope: 'read' });
    expect(narrowed.statusCode, narrowed.body).toBe(200);
    expect(narrowed.json<TokenAnswer>().scope).toBe('read');
    // The family keeps its scope: the next refresh may ask for write again.
    const next = await refresh(narrowed.json<TokenAnswer>().refresh_token, { scope: 'read write' });
    expect(next.statusCode, next.body).toBe(200);
    expectOAuthError(await refresh(next.json<TokenAnswer>().refresh_token, { scope: 'read write follow' }), 400, 'invalid_scope');
  });

  it("refuse another client's refresh token, an unknown one and an expired one", async () => {
    const first = await tokensFor();
    const other = await registerClient(t.app);
    expectOAuthError(
      await tokenRequest(t.app, other, { grant_type: 'refresh_token', refresh_token: first.refresh_token }),
      400,
      'invalid_grant',
    );
    expectOAuthError(await refresh('rsr_unknown'), 400, 'invalid_grant');
    offsetMs = 30 * DAY_MS;
    expectOAuthError(await refresh(first.refresh_token), 400, 'invalid_grant');
  });
});

describe('access token expiry', () => {
  it('an access token issued 24 hours ago is refused', async () => {
    offsetMs = -DAY_MS;
    const tokens = await tokensFor();
    offsetMs = 0;
    expect(await apiCall(t.app, tokens.access_token, USER)).toBe(401);
    // Its refresh token still works, and gives a live access token.
    const renewed = (await refresh(tokens.refresh_token)).json<TokenAnswer>();
    expect(await apiCall(t.app, renewed.access_token, USER)).toBe(200);
  });

  it('the lifetime is configurable', async () => {
    await t.close();
    t = await createOAuthTestApp({ gateway: instances, settings: { accessTokenTtlSeconds: 3600 } });
    client = await registerClient(t.app);
    expect((await tokensFor()).expires_in).toBe(3600);
  });
});

describe('maintenance', () => {
  it('purges logins, consent tickets, codes and token families a day after they can no longer be used', async () => {
    const db = t.database.db;
    const counts = async () =>
      Promise.all(
        (['oauth_logins', 'oauth_consents', 'oauth_codes', 'oauth_token_families', 'oauth_refresh_tokens'] as const).map(
          async (table) =>
            (
              await db
                .selectFrom(table)
                .select((eb) => eb.fn.countAll<number>().as('n'))
                .executeTakeFirstOrThrow()
            ).n,
        ),
      );
    const tokens = await tokensFor();
    await refresh(tokens.refresh_token);
    locationOf(await t.app.inject({ method: 'GET', url: authorizeUrl(client, { code_challenge: pkcePair().challenge }) })); // an abandoned login
    expect(await counts()).toEqual([2, 1, 1, 1, 2]);

    offsetMs = 2 * DAY_MS; // codes, consents and logins long expired; refresh tokens still live
    await t.app.agentRunner.runNow('oauth_maintenance');
    expect(await counts()).toEqual([0, 0, 0, 1, 2]);

    offsetMs = 32 * DAY_MS; // every refresh token expired more than a day ago
    await t.app.agentRunner.runNow('oauth_maintenance');
    expect(await counts()).toEqual([0, 0, 0, 0, 0]);
  });
});

describe('revocation (RFC 7009)', () => {
  async function revoke(token: string, by = client, extra: Record<string, string> = {}) {
    return t.app.inject({
      method: 'POST',
      url: '/api/v1/oauth/revoke',
      headers: { authorization: basic(by), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ token, ...extra }).toString(),
    });
  }

  it('revokes an access token at once, leaving its refresh token', async () => {
    const tokens = await tokensFor();
    expect(await apiCall(t.app, tokens.access_token, USER)).toBe(200);
    const response = await revoke(tokens.access_token, client, { token_type_hint: 'access_token' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({});
    expect(await apiCall(t.app, tokens.access_token, USER)).toBe(401);
    expect((await refresh(tokens.refresh_token)).statusCode).toBe(200);
  });

  it('revokes a refresh token with its whole family', async () => {
    const first = await tokensFor();
    const second = (await refresh(first.refresh_token)).json<TokenAnswer>();
    expect(await apiCall(t.app, second.access_token, USER)).toBe(200);
    expect((await revoke(second.refresh_token)).statusCode).toBe(200);
    expect(await apiCall(t.app, second.access_token, USER)).toBe(401);
    expectOAuthError(await refresh(second.refresh_token), 400, 'invalid_grant');
  });

  it("answers 200 for unknown tokens and other clients' tokens, which stay valid", async () => {
    expect((await revoke('rsv_unknown')).statusCode).toBe(200);
    const tokens = await tokensFor();
    const other = await registerClient(t.app);
    expect((await revoke(tokens.access_token, other)).statusCode).toBe(200);
    expect((await revoke(tokens.refresh_token, other)).statusCode).toBe(200);
    expect(await apiCall(t.app, tokens.access_token, USER)).toBe(200);
    expect((await refresh(tokens.refresh_token)).statusCode).toBe(200);
  });

  it('needs the client authenticated and a token', async () => {
    const tokens = await tokensFor();
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/v1/oauth/revoke',
      headers: { authorization: basic(client, 'wrong') },
      payload: { token: tokens.access_token },
    });
    expectOAuthError(wrong, 401, 'invalid_client');
    expect(await apiCall(t.app, tokens.access_token, USER)).toBe(200);
    const missing = await t.app.inject({
      method: 'POST',
      url: '/api/v1/oauth/revoke',
      headers: { authorization: basic(client) },
      payload: {},
    });
    expectOAuthError(missing, 400, 'invalid_request');
  });
});
