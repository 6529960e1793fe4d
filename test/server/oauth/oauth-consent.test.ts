/**
 * The consent step over real HTTP (inject) and a real SQLite database: after the instance
 * verifies the account, the callback answers a page naming the app, its scopes, the account
 * and where the answer goes, and only the page's form, with its one-time ticket, lets the
 * client have a code. Each way around it is refused without a code being issued.
 */
import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  answerConsent,
  apiCall,
  authorizeUrl,
  consentTicket,
  createOAuthTestApp,
  FakeInstances,
  locationOf,
  pkcePair,
  redeem,
  registerClient,
  type OAuthTestApp,
  type TestClient,
  type TokenAnswer,
} from './oauth-test-app.js';

let t: OAuthTestApp;
let instances: FakeInstances;
let client: TestClient;
/** The OAuth feature's clock: real time plus this offset. */
let offsetMs = 0;

beforeEach(async () => {
  offsetMs = 0;
  instances = new FakeInstances();
  t = await createOAuthTestApp({ gateway: instances, now: () => Date.now() + offsetMs });
  client = await registerClient(t.app, { client_name: 'Pinafore', website: 'https://pinafore.example' });
});
afterEach(() => t.close());

/** Authorize, log in at the (fake) instance as `accountId`: the callback's answer, meant to be the consent page. */
async function consentPage(
  options: { accountId?: string; challenge?: string; who?: TestClient; params?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  const who = options.who ?? client;
  const challenge = options.challenge ?? pkcePair().challenge;
  const start = await t.app.inject({ method: 'GET', url: authorizeUrl(who, { code_challenge: challenge, ...options.params }) });
  const state = locationOf(start).searchParams.get('state')!;
  const code = instances.approve(options.accountId ?? '42');
  return t.app.inject({ method: 'GET', url: `/api/v1/oauth/callback?code=${code}&state=${encodeURIComponent(state)}` });
}

async function codesIssued(): Promise<number> {
  const db = t.database.db;
  const row = await db
    .selectFrom('oauth_codes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function expectRefused(response: LightMyRequestResponse, status: number, description: RegExp): void {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers.location).toBeUndefined();
  const body = response.json<{ error: string; error_description: string }>();
  expect(body.error).toBe('invalid_request');
  expect(body.error_description).toMatch(description);
}

describe('the consent page', () => {
  it('names the app, its website, the scopes in plain words, the account and where the answer goes', async () => {
    const page = await consentPage({ params: { scope: 'read write' } });
    consentTicket(page);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    const text = page.body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(text).toContain('Authorize Pinafore to use your account?');
    expect(text).toContain('Website https://pinafore.example');
    expect(text).toContain('Account @user42@social.example');
    expect(text).toContain('Sends you to client.example');
    expect(text).toContain('See your recommendations, interactions, preferences and privacy settings on this service');
    expect(text).toContain('Record interactions and change your preferences');
    expect(text).toContain('Requested scopes: read write.');
    expect(text).toContain('The app chose its name and website itself: this service has not checked them.');
    expect(page.body).toMatch(/<form method="post" action="consent">/);
    // Self-contained: no script and nothing loaded from anywhere.
    expect(page.body).not.toMatch(/<script|\ssrc=|<link|@import|url\(/i);
  });

  it('asks only for what the request names: read alone is not described as write', async () => {
    const text = (await consentPage({ params: { scope: 'read' } })).body;
    expect(text).toContain('See your recommendations');
    expect(text).not.toContain('Record interactions');
  });

  it('cannot be framed, and lets its form reach only the service and the client (over a real socket)', async () => {
    const start = await t.app.inject({ method: 'GET', url: authorizeUrl(client, { code_challenge: pkcePair().challenge }) });
    const state = locationOf(start).searchParams.get('state')!;
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const page = await fetch(`${base}/api/v1/oauth/callback?code=${instances.approve('42')}&state=${encodeURIComponent(state)}`);
    expect(page.status).toBe(200);
    const body = await page.text();
    consentTicket({ statusCode: page.status, body });
    // One value each (fetch would join repeated headers with commas), replacing the app-wide SAMEORIGIN ones.
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const csp = page.headers.get('content-security-policy')!;
    const directives = new Map(csp.split(/;\s*/).map((part) => [part.split(' ')[0], part.split(' ').slice(1).join(' ')]));
    expect(directives.get('frame-ancestors')).toBe("'none'");
    expect(directives.get('default-src')).toBe("'none'");
    expect(directives.get('form-action')).toBe("'self' https://client.example");
    // The page's one inline style is the one its hash allows (a browser would drop any other).
    const style = /<style>([^<]*)<\/style>/.exec(body)![1]!;
    expect(directives.get('style-src')).toBe(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(csp).not.toContain('unsafe');
    expect(csp).not.toContain(',');
  });

  it('names an app redirect URI by its scheme, and allows the form to reach it', async () => {
    const page = await consentPage({ who: { ...client, redirectUri: 'com.example.app:/oauth' } });
    expect(page.body).toContain('the app that opens com.example.app: links');
    expect(String(page.headers['content-security-policy'])).toContain("form-action 'self' com.example.app:");
  });

  it('escapes what the client chose: a script in its name or website stays text', async () => {
    const evil = await registerClient(t.app, {
      client_name: `<script>alert("name")</script> & 'co'`,
      website: 'https://x.example/"><script>alert(1)</script>',
    });
    const page = await consentPage({ who: evil });
    consentTicket(page);
    expect(page.body).not.toMatch(/<script/i);
    expect(page.body).toContain('&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt; &amp; &#39;co&#39;');
    expect(page.body).toContain('https://x.example/&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('issues nothing by itself: no code until the user answers', async () => {
    consentTicket(await consentPage());
    expect(await codesIssued()).toBe(0);
  });
});

describe('answering the consent page', () => {
  it('approve: the client gets a code and its state, and the code gives tokens with its PKCE verifier', async () => {
    const { verifier, challenge } = pkcePair();
    const answer = await answerConsent(t.app, consentTicket(await consentPage({ challenge })), 'approve');
    expect(answer.headers['cache-control']).toBe('no-store');
    const back = locationOf(answer, 303);
    expect(`${back.origin}${back.pathname}`).toBe('https://client.example/callback');
    expect(back.searchParams.get('state')).toBe('client-state-1');
    const redeemed = await redeem(t.app, client, back.searchParams.get('code')!, verifier);
    expect(redeemed.statusCode, redeemed.body).toBe(200);
    const tokens = redeemed.json<TokenAnswer>();
    expect(tokens.scope).toBe('read write');
    expect(await apiCall(t.app, tokens.access_token, '42@social.example')).toBe(200);
  });

  it('deny: the client gets access_denied and its state, no code, and the ticket is spent', async () => {
    const ticket = consentTicket(await consentPage());
    const back = locationOf(await answerConsent(t.app, ticket, 'deny'), 303);
    expect(`${back.origin}${back.pathname}`).toBe('https://client.example/callback');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('error_description')).toBeTruthy();
    expect(back.searchParams.get('state')).toBe('client-state-1');
    expect(back.searchParams.get('code')).toBeNull();
    expectRefused(await answerConsent(t.app, ticket, 'approve'), 400, /already answered/);
    expect(await codesIssued()).toBe(0);
  });

  it('refuses a ticket used twice: one code only', async () => {
    const ticket = consentTicket(await consentPage());
    locationOf(await answerConsent(t.app, ticket, 'approve'), 303);
    expectRefused(await answerConsent(t.app, ticket, 'approve'), 400, /already answered/);
    expect(await codesIssued()).toBe(1);
  });

  it('refuses a ticket after 5 minutes', async () => {
    const ticket = consentTicket(await consentPage());
    offsetMs = 5 * 60_000;
    expectRefused(await answerConsent(t.app, ticket, 'approve'), 400, /expired/);
    expect(await codesIssued()).toBe(0);
  });

  it('refuses a forged or altered ticket, and a missing one', async () => {
    const ticket = consentTicket(await consentPage());
    const altered = `${ticket.slice(0, -1)}${ticket.endsWith('A') ? 'B' : 'A'}`;
    expectRefused(await answerConsent(t.app, altered, 'approve'), 400, /unknown/);
    expectRefused(await answerConsent(t.app, 'x'.repeat(43), 'approve'), 400, /unknown/);
    expectRefused(await answerConsent(t.app, '', 'approve'), 400, /ticket is required/);
    expect(await codesIssued()).toBe(0);
    // The real ticket was not spent by the forgeries.
    locationOf(await answerConsent(t.app, ticket, 'approve'), 303);
  });

  it('refuses a decision that is neither approve nor deny, without spending the ticket', async () => {
    const ticket = consentTicket(await consentPage());
    expectRefused(await answerConsent(t.app, ticket, 'yes'), 400, /approve or deny/);
    expectRefused(await answerConsent(t.app, ticket, ''), 400, /approve or deny/);
    expect(await codesIssued()).toBe(0);
    locationOf(await answerConsent(t.app, ticket, 'approve'), 303);
  });

  it('refuses a GET, even with a good ticket in the query, and the ticket stays unspent', async () => {
    const ticket = consentTicket(await consentPage());
    const get = await t.app.inject({
      method: 'GET',
      url: `/api/v1/oauth/consent?${new URLSearchParams({ ticket, decision: 'approve' }).toString()}`,
    });
    expectRefused(get, 405, /POST/);
    expect(get.headers.allow).toBe('POST');
    expect(await codesIssued()).toBe(0);
    locationOf(await answerConsent(t.app, ticket, 'approve'), 303);
  });

  it('refuses a body that is not the form (JSON)', async () => {
    const ticket = consentTicket(await consentPage());
    const json = await t.app.inject({ method: 'POST', url: '/api/v1/oauth/consent', payload: { ticket, decision: 'approve' } });
    expectRefused(json, 415, /form/);
    expect(await codesIssued()).toBe(0);
  });

  it('binds the ticket to its own authorization: another login of another account gets its own', async () => {
    const first = consentTicket(await consentPage({ accountId: '42' }));
    const second = consentTicket(await consentPage({ accountId: '7', params: { state: 'other-state' } }));
    expect(second).not.toBe(first);
    const back = locationOf(await answerConsent(t.app, second, 'approve'), 303);
    expect(back.searchParams.get('state')).toBe('other-state');
    const db = t.database.db;
    expect((await db.selectFrom('oauth_codes').select('user_id').execute()).map((row) => row.user_id)).toEqual(['7@social.example']);
  });
});
