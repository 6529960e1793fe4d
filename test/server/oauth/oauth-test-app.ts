/**
 * A real app on a real, migrated in-memory SQLite database with the OAuth feature, and a
 * client's side of the flow (register, authorize, log in at the instance, redeem) as helpers.
 *
 * The feature comes from the app's own wiring when server/features.ts registers it (with
 * the `oauth` deps passed in the app options); until then this helper registers it itself,
 * with a stand-in for the service-token verifier's `forget()` that makes the app's verifier
 * drop its cache (as a write by another process would).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { expect } from 'vitest';
import type { RateLimitPolicy } from '../../../src/rate-limit/policy.js';
import { buildApp } from '../../../server/app.js';
import type { DatabaseHandle } from '../../../server/platform/db/connection.js';
import * as oauthMigration from '../../../server/platform/db/migrations/0016-oauth.js';
import { InstanceGatewayError as GatewayError, type InstanceGateway } from '../../../server/oauth/instance-gateway.js';
import { registerOAuth, type OAuthDeps } from '../../../server/oauth/oauth.feature.js';
import { openTestDatabase } from '../../helpers/test-database.js';

export interface OAuthTestApp {
  app: FastifyInstance;
  database: DatabaseHandle;
  close(): Promise<void>;
}

async function ensureOAuthTables(database: DatabaseHandle): Promise<void> {
  const tables = await database.db.introspection.getTables();
  if (!tables.some((table) => table.name === 'oauth_clients')) await oauthMigration.up(database.db);
}

export async function createOAuthTestApp(deps: OAuthDeps & { publicUrl?: string; rateLimit?: RateLimitPolicy }): Promise<OAuthTestApp> {
  const testDatabase = await openTestDatabase();
  const opened = testDatabase.database;
  await ensureOAuthTables(opened);
  let forgotten = 0;
  const database: DatabaseHandle = { ...opened, externalWrites: () => opened.externalWrites() + forgotten };
  const { publicUrl, rateLimit, ...oauth } = deps;
  const app = await buildApp({ database, rateLimit: rateLimit ?? null, ...(publicUrl ? { publicUrl } : {}), ...({ oauth } as object) });
  if (!app.hasRoute({ method: 'POST', url: '/api/v1/oauth/token' })) {
    await registerOAuth(app, { database, tokens: { forget: () => void (forgotten += 1) }, agents: app.agentRunner }, oauth);
  }
  await app.ready();
  return {
    app,
    database,
    async close() {
      await app.close();
      await testDatabase.close();
    },
  };
}

/** A fake instance behind the gateway interface: it "logs in" whoever the test says. */
export class FakeInstances implements InstanceGateway {
  registrations: Array<{ instance: string; redirectUri: string; scopes: string }> = [];
  /** The next call of this method fails so. */
  failNext: Partial<Record<'registerApp' | 'exchangeCode' | 'verifyCredentials', 'rejected' | 'unavailable'>> = {};
  private readonly codes = new Map<string, string>();
  private readonly tokens = new Map<string, string>();
  private apps = 0;

  canonicalInstance(name: string): string {
    const host = name.trim().toLowerCase();
    if (host === 'localhost' || /^\d+(\.\d+)*(:\d+)?$/.test(host) || !/^[a-z0-9.-]+(:\d+)?$/.test(host)) {
      throw new GatewayError('refused', `${name} is not allowed`);
    }
    return host;
  }

  async registerApp(instance: string, app: { redirectUri: string; scopes: string }) {
    this.fail('registerApp');
    this.registrations.push({ instance, redirectUri: app.redirectUri, scopes: app.scopes });
    this.apps += 1;
    return { clientId: `svc-app-${this.apps}`, clientSecret: `svc-secret-${this.apps}` };
  }

  authorizeUrl(instance: string, params: { clientId: string; redirectUri: string; scopes: string; state: string }): string {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: params.clientId,
      redirect_uri: params.redirectUri,
      scope: params.scopes,
      state: params.state,
    });
    return `https://${instance}/oauth/authorize?${query.toString()}`;
  }

  /** The user logs in as `accountId`: the code the instance sends back. */
  approve(accountId: string): string {
    const code = randomBytes(8).toString('hex');
    this.codes.set(code, accountId);
    return code;
  }

  async exchangeCode(_instance: string, params: { code: string }) {
    this.fail('exchangeCode');
    const account = this.codes.get(params.code);
    if (account === undefined) throw new GatewayError('rejected', 'invalid_grant');
    this.codes.delete(params.code);
    const accessToken = randomBytes(8).toString('hex');
    this.tokens.set(accessToken, account);
    return { accessToken };
  }

  async verifyCredentials(_instance: string, accessToken: string) {
    this.fail('verifyCredentials');
    const id = this.tokens.get(accessToken);
    if (id === undefined) throw new GatewayError('rejected', 'token refused');
    return { id, acct: `user${id}` };
  }

  private fail(method: keyof FakeInstances['failNext']): void {
    const failure = this.failNext[method];
    if (failure === undefined) return;
    delete this.failNext[method];
    throw new GatewayError(failure, `${method} failed on purpose`);
  }
}

export interface TestClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export const REDIRECT_URI = 'https://client.example/callback?app=1';

export async function registerClient(app: FastifyInstance, body: Record<string, unknown> = {}): Promise<TestClient> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/oauth/apps',
    payload: {
      client_name: 'Test client',
      redirect_uris: [REDIRECT_URI, 'com.example.app:/oauth'],
      scopes: 'read write follow push',
      ...body,
    },
  });
  expect(response.statusCode, response.body).toBe(200);
  const app_ = response.json<{ client_id: string; client_secret: string }>();
  return { clientId: app_.client_id, clientSecret: app_.client_secret, redirectUri: REDIRECT_URI };
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function basic(client: TestClient, secret = client.clientSecret): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

export function authorizeUrl(client: TestClient, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: 'read write',
    state: 'client-state-1',
    code_challenge_method: 'S256',
    instance: 'social.example',
    ...params,
  };
  for (const [name, value] of Object.entries(all)) if (value !== undefined) query.set(name, value);
  return `/api/v1/oauth/authorize?${query.toString()}`;
}

/** The query of a redirect's Location (302; 303 after the consent form's POST). */
export function locationOf(response: LightMyRequestResponse, status: 302 | 303 = 302): URL {
  expect(response.statusCode, response.body).toBe(status);
  return new URL(String(response.headers.location));
}

/** The consent page the callback answers with: asserted to be one, and its form's ticket. */
export function consentTicket(response: LightMyRequestResponse | { statusCode: number; body: string }): string {
  expect(response.statusCode, response.body).toBe(200);
  const ticket = /<input type="hidden" name="ticket" value="([^"]+)">/.exec(response.body)?.[1];
  expect(ticket, response.body).toBeDefined();
  return ticket!;
}

/** The consent page's form, as a browser posts it. */
export async function answerConsent(
  app: FastifyInstance,
  ticket: string,
  decision: string,
  form: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/api/v1/oauth/consent',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ ticket, decision, ...form }).toString(),
  });
}

/**
 * The whole front-channel trip: authorize, the instance's login page (the fake approves
 * `accountId`), the service's callback and its consent page (approved); returns the
 * client's code and the final redirect.
 */
export async function authorizeAndLogIn(
  t: OAuthTestApp,
  instances: FakeInstances,
  client: TestClient,
  options: { accountId?: string; challenge: string; params?: Record<string, string | undefined> },
): Promise<{ code: string; location: URL }> {
  const toInstance = locationOf(
    await t.app.inject({ method: 'GET', url: authorizeUrl(client, { code_challenge: options.challenge, ...options.params }) }),
  );
  const state = toInstance.searchParams.get('state')!;
  const callback = new URL(toInstance.searchParams.get('redirect_uri')!);
  const instanceCode = instances.approve(options.accountId ?? '42');
  const back = await t.app.inject({ method: 'GET', url: `${callback.pathname}?code=${instanceCode}&state=${encodeURIComponent(state)}` });
  const location = locationOf(await answerConsent(t.app, consentTicket(back), 'approve'), 303);
  return { code: location.searchParams.get('code')!, location };
}

export interface TokenAnswer {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
  created_at: number;
}

export async function tokenRequest(
  app: FastifyInstance,
  client: TestClient,
  body: Record<string, string>,
  options: { form?: boolean; secret?: string; inBody?: boolean } = {},
): Promise<LightMyRequestResponse> {
  const credentials = options.inBody ? { client_id: client.clientId, client_secret: options.secret ?? client.clientSecret } : {};
  const payload = { ...body, ...credentials };
  return app.inject({
    method: 'POST',
    url: '/api/v1/oauth/token',
    headers: {
      ...(options.inBody ? {} : { authorization: basic(client, options.secret) }),
      'content-type': options.form === false ? 'application/json' : 'application/x-www-form-urlencoded',
    },
    payload: options.form === false ? JSON.stringify(payload) : new URLSearchParams(payload).toString(),
  });
}

export async function redeem(app: FastifyInstance, client: TestClient, code: string, verifier: string): Promise<LightMyRequestResponse> {
  return tokenRequest(app, client, { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier });
}

/** An API call with a token: the user's own interactions (read scope, own data). */
export async function apiCall(app: FastifyInstance, token: string, userId: string): Promise<number> {
  const response = await app.inject({
    method: 'GET',
    url: `/api/v1/interactions?user_id=${encodeURIComponent(userId)}`,
    headers: { authorization: `Bearer ${token}` },
  });
  return response.statusCode;
}

/** Every text value stored in the database, to look for secrets in clear. */
export async function everyStoredText(database: DatabaseHandle): Promise<string> {
  const tables = await database.db.introspection.getTables();
  const parts: string[] = [];
  for (const table of tables) {
    const rows = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table.name)}`.execute(database.db);
    parts.push(JSON.stringify(rows.rows));
  }
  return parts.join('\n');
}
