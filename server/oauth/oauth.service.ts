/**
 * The service's own OAuth 2.0 authorization server. Users sign in at their Mastodon instance:
 * the service is an app there (registered once per instance and callback URL), sends the
 * user to the instance's login page, takes the instance's code back at its callback, asks the
 * instance whose account it is, shows the user which app asks for what (the consent page),
 * and only when they approve gives the client its own authorization code.
 *
 * - The consent page's form carries a one-time ticket (hash stored, 5 minutes): the only thing
 *   that authorises the decision, so a forged cross-site POST has nothing to present.
 * - Codes are single-use (one UPDATE ... WHERE used_at_ms IS NULL decides which redemption
 *   wins, however many race), expire after 10 minutes, and are bound to the client, the
 *   exact redirect URI, the PKCE S256 challenge, the user and the scopes. A code presented
 *   again revokes every token issued from it (RFC 6749 §4.1.2).
 * - Access tokens are ordinary service tokens (the `tokens` table, through the token
 *   service), so the bearer-token path accepts them as it is; refresh tokens rotate on each
 *   use within the family their code started, and a spent refresh token presented again
 *   revokes the whole family, access tokens included, at once (the verifier's cache is told).
 * - Secrets, codes, states, tickets and tokens are stored only as SHA-256 hashes.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { NotFoundError } from '../../src/errors.js';
import { createToken, hashToken, revokeTokenById } from '../platform/auth/token.service.js';
import type { ClientCredentials } from './client-credentials.js';
import { accountHandle, openConsent, spendConsent } from './consent-tickets.js';
import { InstanceGatewayError, type InstanceAccount, type InstanceAppCredentials, type InstanceGateway } from './instance-gateway.js';
import { OAuthError, type OAuthErrorCode } from './oauth-errors.js';
import { DEFAULT_SCOPE, parseScopeList, requireWithin, serviceScopes } from './oauth-scopes.js';
import {
  consumeCode,
  consumeLogin,
  consumeRefreshToken,
  deleteCodesExpiredBefore,
  deleteLoginsExpiredBefore,
  findByAccessTokenHash,
  findClient,
  findCode,
  findFamilyIdByCode,
  findInstanceApp,
  findRefreshToken,
  insertClient,
  insertCode,
  insertFamily,
  insertInstanceApp,
  insertLogin,
  insertRefreshToken,
  isFamilyRevoked,
  purgeExpired,
  revokeFamily,
  unexpiredAccessTokenIds,
  type ClientRow,
  type ConsentRow,
  type OAuthDb,
} from './oauth.repository.js';
import type { OAuthSettings } from './oauth.settings.js';
import { CHALLENGE_PATTERN, verifierMatches } from './pkce.js';

/** A registered client app. */
export interface OAuthClient {
  id: string;
  clientId: string;
  name: string;
  website: string | null;
  redirectUris: string[];
  scopes: string[];
}

/** A newly registered client and its secret (shown this once; none for a public client). */
export interface RegisteredClient extends OAuthClient {
  clientSecret: string | undefined;
}

export interface ClientRegistration {
  clientName: string;
  redirectUris: string | string[];
  scopes?: string | undefined;
  website?: string | undefined;
  /**
   * A public client (RFC 7591 `token_endpoint_auth_method: none`): a browser or native app that
   * cannot keep a secret. It gets none, and proves each code with its PKCE verifier alone (every
   * code needs S256 PKCE anyway, RFC 7636).
   */
  publicClient?: boolean | undefined;
}

/** What a public client has in place of a secret's hash (a hash is 64 hex digits, never empty). */
const PUBLIC_CLIENT = '';

/** An authorization request's parameters, once its client and redirect URI are known to be good. */
export interface AuthorizationRequest {
  responseType?: string | undefined;
  scope?: string | undefined;
  state?: string | undefined;
  codeChallenge?: string | undefined;
  codeChallengeMethod?: string | undefined;
  instance?: string | undefined;
}

/** A successful token response (RFC 6749 §5.1, with Mastodon's `created_at`). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
  created_at: number;
}

/** What the consent page shows, and the one-time ticket its form sends back. */
export interface ConsentPrompt {
  ticket: string;
  client: OAuthClient;
  scopes: string[];
  redirectUri: string;
  /** `@name@instance` */
  account: string;
  expiresInSeconds: number;
}

/** The callback's outcome: the consent page to show, or the client's redirect URI with an error. */
export type LoginOutcome = { consent: ConsentPrompt; redirect?: undefined } | { redirect: string; consent?: undefined };

/** Where the tokens for `token.service` should be forgotten from after a revocation. */
export interface TokenCache {
  forget(): void;
}

const REFRESH_PREFIX = 'rsr_';
const CODE_PREFIX = 'rsc_';
/** Used codes and logins are kept this long after they expire, so a late replay still revokes. */
const REPLAY_WINDOW_MS = 24 * 3600 * 1000;
const MAX_REDIRECT_URIS = 10;
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);

/** A spent code or refresh token met inside the issuing transaction (another redemption won). */
class AlreadySpent extends Error {}

const secret = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/** The URI with parameters appended to its query (existing ones kept); undefined values left out. */
export function withQuery(uri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== null) url.searchParams.append(name, value);
  return url.toString();
}

/** Redirect URIs as registered: absolute, no fragment, not a script or local scheme, not out-of-band. */
function checkRedirectUri(uri: string): void {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new OAuthError('invalid_redirect_uri', `redirect URI "${uri}" is not an absolute URI`);
  }
  if (uri === 'urn:ietf:wg:oauth:2.0:oob') {
    throw new OAuthError('invalid_redirect_uri', 'out-of-band redirection is not supported: register a URI the browser can be sent to');
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol))
    throw new OAuthError('invalid_redirect_uri', `redirect URI scheme ${url.protocol} is not allowed`);
  if (uri.includes('#')) throw new OAuthError('invalid_redirect_uri', `redirect URI "${uri}" must not have a fragment`);
  if (/\s/.test(uri)) throw new OAuthError('invalid_redirect_uri', 'redirect URIs must not contain white space');
}

/**
 * The user id of an account on an instance: `<account id>@<canonical host>`, the form the
 * Mastodon token provider gives (server/platform/social/mastodon-identity.ts), so signing in either
 * way reaches the same user's data.
 */
export function socialUserId(accountId: string, instance: string): string {
  return `${accountId}@${instance}`;
}

function toClient(row: ClientRow): OAuthClient {
  return {
    id: row.id,
    clientId: row.client_id,
    name: row.name,
    website: row.website,
    redirectUris: row.redirect_uris.split('\n'),
    scopes: row.scopes.split(' '),
  };
}

export class OAuthService {
  /** Registrations on instances under way, so concurrent first logins register once. */
  private readonly registering = new Map<string, Promise<InstanceAppCredentials>>();

  constructor(
    private readonly db: OAuthDb,
    private readonly tokens: TokenCache,
    private readonly gateway: InstanceGateway,
    readonly settings: OAuthSettings,
    private readonly now: () => number = Date.now,
  ) {}

  // ---- clients ---------------------------------------------------------------------------

  /** Registers a client app (Mastodon's POST /api/v1/apps); its secret is stored only as a hash. */
  async registerClient(input: ClientRegistration): Promise<RegisteredClient> {
    const name = input.clientName.trim();
    if (name.length === 0) throw new OAuthError('invalid_client_metadata', 'client_name must not be empty');
    const redirectUris = [
      ...new Set(
        (Array.isArray(input.redirectUris) ? input.redirectUris : input.redirectUris.split('\n')).map((uri) => uri.trim()).filter(Boolean),
      ),
    ];
    if (redirectUris.length === 0) throw new OAuthError('invalid_redirect_uri', 'redirect_uris must name at least one URI');
    if (redirectUris.length > MAX_REDIRECT_URIS) throw new OAuthError('invalid_redirect_uri', `at most ${MAX_REDIRECT_URIS} redirect URIs`);
    redirectUris.forEach(checkRedirectUri);
    const scopes = parseScopeList(input.scopes ?? DEFAULT_SCOPE);
    serviceScopes(scopes);
    const website = input.website?.trim() ? input.website.trim() : null;
    if (website !== null && !/^https?:\/\/[^\s]+$/i.test(website)) {
      throw new OAuthError('invalid_client_metadata', 'website must be an http(s) URL');
    }
    const clientSecret = input.publicClient ? undefined : secret();
    const row: ClientRow = {
      client_id: secret(24),
      id: randomUUID(),
      client_secret_hash: clientSecret === undefined ? PUBLIC_CLIENT : hashToken(clientSecret),
      name,
      website,
      redirect_uris: redirectUris.join('\n'),
      scopes: scopes.join(' '),
      created_at_ms: this.now(),
    };
    await insertClient(this.db, row);
    return { ...toClient(row), clientSecret };
  }

  /** Whether `clientId` names a client registered with the service (not with an instance). */
  async isOwnClient(clientId: string): Promise<boolean> {
    return clientId !== '' && (await findClient(this.db, clientId)) !== undefined;
  }

  /** The client an authorization request names, once its redirect URI matches one registered exactly; 400 otherwise. */
  async clientForAuthorization(clientId: string | undefined, redirectUri: string | undefined): Promise<OAuthClient> {
    if (clientId === undefined || clientId === '') throw new OAuthError('invalid_request', 'client_id is required');
    const row = await findClient(this.db, clientId);
    if (!row) throw new OAuthError('invalid_request', 'client_id is not a registered client');
    const client = toClient(row);
    if (redirectUri === undefined || redirectUri === '') throw new OAuthError('invalid_request', 'redirect_uri is required');
    if (!client.redirectUris.includes(redirectUri)) {
      throw new OAuthError('invalid_request', 'redirect_uri does not match any redirect URI registered for this client');
    }
    return client;
  }

  /**
   * The client these credentials authenticate; invalid_client (401) otherwise. A public client
   * is named by its id alone (and refused with a secret); any other needs its secret.
   */
  async authenticateClient(credentials: ClientCredentials): Promise<OAuthClient> {
    const row = await findClient(this.db, credentials.clientId);
    if (row?.client_secret_hash === PUBLIC_CLIENT) {
      if (credentials.clientSecret !== undefined && credentials.clientSecret !== '')
        throw new OAuthError('invalid_client', 'A public client has no client secret');
      return toClient(row);
    }
    if (credentials.clientSecret === undefined) {
      throw new OAuthError(
        'invalid_client',
        'Client authentication is required: client_id and client_secret, in the body or with HTTP Basic (a client registered with token_endpoint_auth_method none sends client_id alone)',
      );
    }
    const expected = Buffer.from(row?.client_secret_hash ?? hashToken(''), 'hex');
    const given = Buffer.from(hashToken(credentials.clientSecret), 'hex');
    if (!row || !timingSafeEqual(expected, given)) throw new OAuthError('invalid_client', 'Unknown client or wrong client secret');
    return toClient(row);
  }

  // ---- authorization: the trip to the instance and back -----------------------------------

  /**
   * Checks an authorization request (its client and redirect URI already checked) and starts the
   * login at the user's instance; returns the URL to send the user to. OAuthError (to be
   * redirected to the client) on a bad request, InstanceGatewayError when the instance fails.
   */
  async startLogin(client: OAuthClient, redirectUri: string, request: AuthorizationRequest, callbackUrl: string): Promise<string> {
    if (request.responseType === undefined || request.responseType === '')
      throw new OAuthError('invalid_request', 'response_type is required');
    if (request.responseType !== 'code') {
      throw new OAuthError('unsupported_response_type', 'Only response_type=code (the authorization code flow) is supported');
    }
    if (request.codeChallenge === undefined || request.codeChallenge === '') {
      throw new OAuthError('invalid_request', 'code_challenge is required (PKCE with code_challenge_method=S256)');
    }
    if (request.codeChallengeMethod !== 'S256') {
      throw new OAuthError(
        'invalid_request',
        request.codeChallengeMethod === undefined || request.codeChallengeMethod === ''
          ? 'code_challenge_method=S256 is required (plain, the default, is refused)'
          : `code_challenge_method ${request.codeChallengeMethod} is refused: only S256 is supported`,
      );
    }
    if (!CHALLENGE_PATTERN.test(request.codeChallenge)) {
      throw new OAuthError('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier (43 characters)');
    }
    const scopes = parseScopeList(request.scope ?? DEFAULT_SCOPE);
    requireWithin(scopes, client.scopes, 'registered for this client');
    serviceScopes(scopes);
    const named = request.instance !== undefined && request.instance !== '' ? request.instance : this.settings.defaultInstance;
    if (named === undefined || named === '')
      throw new OAuthError('invalid_request', 'instance is required (no default instance is configured)');
    const instance = this.gateway.canonicalInstance(named);

    const app = await this.instanceApp(instance, callbackUrl);
    const state = secret();
    const now = this.now();
    await deleteLoginsExpiredBefore(this.db, now - REPLAY_WINDOW_MS);
    await insertLogin(this.db, {
      state_hash: hashToken(state),
      client_id: client.clientId,
      redirect_uri: redirectUri,
      scopes: scopes.join(' '),
      client_state: request.state ?? null,
      code_challenge: request.codeChallenge,
      instance,
      instance_redirect_uri: callbackUrl,
      created_at_ms: now,
      expires_at_ms: now + this.settings.loginTtlSeconds * 1000,
      used_at_ms: null,
    });
    return this.gateway.authorizeUrl(instance, {
      clientId: app.clientId,
      redirectUri: callbackUrl,
      scopes: this.settings.instanceScopes,
      state,
    });
  }

  /** This service's app on the instance for this callback: registered there the first time, then stored. */
  private async instanceApp(instance: string, callbackUrl: string): Promise<InstanceAppCredentials> {
    const stored = await findInstanceApp(this.db, instance, callbackUrl);
    if (stored) return { clientId: stored.client_id, clientSecret: stored.client_secret };
    const key = `${instance}\n${callbackUrl}`;
    let pending = this.registering.get(key);
    if (!pending) {
      pending = this.registerOnInstance(instance, callbackUrl).finally(() => this.registering.delete(key));
      this.registering.set(key, pending);
    }
    return pending;
  }

  private async registerOnInstance(instance: string, callbackUrl: string): Promise<InstanceAppCredentials> {
    const scopes = this.settings.instanceScopes;
    const credentials = await this.gateway.registerApp(instance, {
      clientName: this.settings.clientName,
      redirectUri: callbackUrl,
      scopes,
    });
    await insertInstanceApp(this.db, {
      instance,
      redirect_uri: callbackUrl,
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      scopes,
      created_at_ms: this.now(),
    });
    // Another process may have stored its own registration first: use the stored one.
    const stored = await findInstanceApp(this.db, instance, callbackUrl);
    return stored ? { clientId: stored.client_id, clientSecret: stored.client_secret } : credentials;
  }

  /**
   * The user is back from the instance: exchanges its code and asks whose account it is. The
   * client gets nothing yet: the answer is the consent prompt (a one-time ticket the user
   * approves or denies with, decideConsent), or the client's redirect URI with an OAuth error.
   * OAuthError (answered here, not redirected) when the state is not a pending login:
   * nothing says which client to send the user to.
   */
  async completeLogin(params: {
    state?: string | undefined;
    code?: string | undefined;
    error?: string | undefined;
  }): Promise<LoginOutcome> {
    if (params.state === undefined || params.state === '') {
      throw new OAuthError('invalid_request', 'state is missing: this address is only reached from the instance login page');
    }
    const login = await consumeLogin(this.db, hashToken(params.state), this.now());
    if (!login) throw new OAuthError('invalid_request', 'This login is unknown, expired or already completed: start again from the app');
    const fail = (code: OAuthErrorCode, description: string): LoginOutcome => ({
      redirect: withQuery(login.redirect_uri, { error: code, error_description: description, state: login.client_state }),
    });
    if (params.error !== undefined)
      return fail('access_denied', `The instance did not authorize the login (${params.error.slice(0, 100)})`);
    if (params.code === undefined || params.code === '') return fail('access_denied', 'The instance sent no authorization code');

    let account: InstanceAccount;
    try {
      const app = await findInstanceApp(this.db, login.instance, login.instance_redirect_uri);
      if (!app) return fail('server_error', "This service's registration on the instance is gone: start again");
      const credentials = { clientId: app.client_id, clientSecret: app.client_secret };
      const { accessToken } = await this.gateway.exchangeCode(login.instance, {
        credentials,
        redirectUri: login.instance_redirect_uri,
        code: params.code,
        scopes: app.scopes,
      });
      account = await this.gateway.verifyCredentials(login.instance, accessToken);
    } catch (error) {
      if (!(error instanceof InstanceGatewayError)) throw error;
      return error.failure === 'unavailable'
        ? fail('temporarily_unavailable', `The instance ${login.instance} could not be reached: try again later`)
        : fail('access_denied', `The instance ${login.instance} refused the login`);
    }
    const clientRow = await findClient(this.db, login.client_id);
    if (!clientRow) return fail('unauthorized_client', 'The client app is no longer registered');

    const handle = accountHandle(account.acct, login.instance);
    const now = this.now();
    const ticket = await openConsent(
      this.db,
      {
        client_id: login.client_id,
        redirect_uri: login.redirect_uri,
        scopes: login.scopes,
        client_state: login.client_state,
        code_challenge: login.code_challenge,
        user_id: socialUserId(account.id, login.instance),
        account: handle,
      },
      { nowMs: now, ttlSeconds: this.settings.consentTtlSeconds, purgeBeforeMs: now - REPLAY_WINDOW_MS },
    );
    return {
      consent: {
        ticket,
        client: toClient(clientRow),
        scopes: login.scopes.split(' '),
        redirectUri: login.redirect_uri,
        account: handle,
        expiresInSeconds: this.settings.consentTtlSeconds,
      },
    };
  }

  /**
   * The user's answer on the consent page. The ticket alone authorises it (the page's form
   * carries it; only its hash is stored): single-use, expiring, bound to one authorization.
   * Approve: the client's redirect URI with a code and the client's state; deny: with
   * `access_denied` (RFC 6749 §4.1.2.1). OAuthError (answered here) for an unknown, spent or
   * expired ticket, or a decision that is neither.
   */
  async decideConsent(ticket: string | undefined, decision: string | undefined): Promise<string> {
    if (ticket === undefined || ticket === '') throw new OAuthError('invalid_request', 'ticket is required: answer from the consent page');
    if (decision !== 'approve' && decision !== 'deny') throw new OAuthError('invalid_request', 'decision must be approve or deny');
    const now = this.now();
    const consent = await spendConsent(this.db, ticket, now);
    if (decision === 'deny') {
      return withQuery(consent.redirect_uri, {
        error: 'access_denied',
        error_description: 'The user denied the authorization',
        state: consent.client_state,
      });
    }
    const code = await this.issueCode(consent, now);
    return withQuery(consent.redirect_uri, { code, state: consent.client_state });
  }

  /** A new authorization code for an approved consent (hash stored only). */
  private async issueCode(consent: ConsentRow, now: number): Promise<string> {
    const code = CODE_PREFIX + secret();
    await deleteCodesExpiredBefore(this.db, now - REPLAY_WINDOW_MS);
    await insertCode(this.db, {
      code_hash: hashToken(code),
      client_id: consent.client_id,
      redirect_uri: consent.redirect_uri,
      code_challenge: consent.code_challenge,
      user_id: consent.user_id,
      scopes: consent.scopes,
      created_at_ms: now,
      expires_at_ms: now + this.settings.codeTtlSeconds * 1000,
      used_at_ms: null,
    });
    return code;
  }

  // ---- the token endpoint --------------------------------------------------------------

  /** The authorization_code grant (RFC 6749 §4.1.3 with PKCE, RFC 7636 §4.6). */
  async redeemCode(
    client: OAuthClient,
    params: { code?: string | undefined; redirectUri?: string | undefined; codeVerifier?: string | undefined },
  ): Promise<TokenResponse> {
    if (params.code === undefined || params.code === '') throw new OAuthError('invalid_request', 'code is required');
    if (params.redirectUri === undefined || params.redirectUri === '') throw new OAuthError('invalid_request', 'redirect_uri is required');
    const now = this.now();
    const codeHash = hashToken(params.code);
    const row = await findCode(this.db, codeHash);
    if (!row) throw new OAuthError('invalid_grant', 'The authorization code is unknown');
    if (row.used_at_ms !== null) return this.codeReused(codeHash);
    if (row.expires_at_ms <= now) throw new OAuthError('invalid_grant', 'The authorization code has expired');
    if (row.client_id !== client.clientId) throw new OAuthError('invalid_grant', 'The authorization code was issued to another client');
    if (row.redirect_uri !== params.redirectUri) {
      throw new OAuthError('invalid_grant', 'redirect_uri differs from the one of the authorization request');
    }
    if (!verifierMatches(params.codeVerifier, row.code_challenge)) {
      throw new OAuthError(
        'invalid_grant',
        params.codeVerifier === undefined ? 'code_verifier is required (PKCE)' : 'code_verifier does not match the code_challenge',
      );
    }
    const scopes = row.scopes.split(' ');
    try {
      return await this.db.transaction().execute(async (trx) => {
        if (!(await consumeCode(trx, codeHash, now))) throw new AlreadySpent();
        const familyId = randomUUID();
        await insertFamily(trx, {
          id: familyId,
          client_id: client.clientId,
          user_id: row.user_id,
          scopes: row.scopes,
          code_hash: codeHash,
          created_at_ms: now,
          revoked_at_ms: null,
        });
        return this.issue(trx, { familyId, client, userId: row.user_id, scopes }, now);
      });
    } catch (error) {
      if (error instanceof AlreadySpent) return this.codeReused(codeHash);
      throw error;
    }
  }

  /** A code presented again: every token issued from it is revoked, and the request refused. */
  private async codeReused(codeHash: string): Promise<never> {
    const familyId = await findFamilyIdByCode(this.db, codeHash);
    if (familyId !== undefined) await this.revokeFamilyTokens(familyId);
    throw new OAuthError('invalid_grant', 'The authorization code was already used: the tokens issued for it are revoked');
  }

  /** The refresh_token grant (RFC 6749 §6), rotating the refresh token within its family. */
  async refresh(client: OAuthClient, params: { refreshToken?: string | undefined; scope?: string | undefined }): Promise<TokenResponse> {
    if (params.refreshToken === undefined || params.refreshToken === '')
      throw new OAuthError('invalid_request', 'refresh_token is required');
    const now = this.now();
    const tokenHash = hashToken(params.refreshToken);
    const row = await findRefreshToken(this.db, tokenHash);
    if (!row) throw new OAuthError('invalid_grant', 'The refresh token is unknown');
    if (row.client_id !== client.clientId) throw new OAuthError('invalid_grant', 'The refresh token was issued to another client');
    if (row.revoked_at_ms !== null) throw new OAuthError('invalid_grant', 'The refresh token has been revoked');
    if (row.used_at_ms !== null) return this.refreshReused(row.family_id);
    if (row.expires_at_ms <= now) throw new OAuthError('invalid_grant', 'The refresh token has expired');
    const familyScopes = row.scopes.split(' ');
    let scopes = familyScopes;
    if (params.scope !== undefined && params.scope !== '') {
      scopes = parseScopeList(params.scope);
      requireWithin(scopes, familyScopes, 'of the refresh token');
    }
    try {
      return await this.db.transaction().execute(async (trx) => {
        if (!(await consumeRefreshToken(trx, tokenHash, now))) throw new AlreadySpent();
        if (await isFamilyRevoked(trx, row.family_id)) throw new OAuthError('invalid_grant', 'The refresh token has been revoked');
        return this.issue(trx, { familyId: row.family_id, client, userId: row.user_id, scopes, familyScopes }, now);
      });
    } catch (error) {
      if (error instanceof AlreadySpent) return this.refreshReused(row.family_id);
      throw error;
    }
  }

  private async refreshReused(familyId: string): Promise<never> {
    await this.revokeFamilyTokens(familyId);
    throw new OAuthError('invalid_grant', 'The refresh token was already used: every token of its family is revoked');
  }

  /** Mints an access token (a service token) and a refresh token in the family, inside the caller's transaction. */
  private async issue(
    trx: OAuthDb,
    grant: { familyId: string; client: OAuthClient; userId: string; scopes: string[]; familyScopes?: string[] },
    now: number,
  ): Promise<TokenResponse> {
    const { accessTokenTtlSeconds, refreshTokenTtlSeconds } = this.settings;
    const { token, info } = await createToken(
      trx,
      {
        scopes: serviceScopes(grant.scopes),
        tier: 'authenticated',
        userId: grant.userId,
        ttlSeconds: accessTokenTtlSeconds,
        label: `oauth:${grant.client.name}`.slice(0, 200),
      },
      new Date(now),
    );
    const refreshToken = REFRESH_PREFIX + secret();
    await insertRefreshToken(trx, {
      token_hash: hashToken(refreshToken),
      family_id: grant.familyId,
      access_token_id: info.id,
      access_token_hash: hashToken(token),
      access_expires_at_ms: now + accessTokenTtlSeconds * 1000,
      created_at_ms: now,
      expires_at_ms: now + refreshTokenTtlSeconds * 1000,
      used_at_ms: null,
    });
    return {
      access_token: token,
      token_type: 'Bearer',
      expires_in: accessTokenTtlSeconds,
      refresh_token: refreshToken,
      scope: grant.scopes.join(' '),
      created_at: Math.floor(now / 1000),
    };
  }

  // ---- revocation ------------------------------------------------------------------------

  /**
   * RFC 7009: revokes a refresh token (and with it its whole family) or an access token issued
   * to this client. Unknown tokens, and tokens of other clients, are left alone without a word.
   */
  async revoke(client: OAuthClient, token: string, hint?: string): Promise<void> {
    const tokenHash = hashToken(token);
    const asRefresh = async (): Promise<boolean> => {
      const row = await findRefreshToken(this.db, tokenHash);
      if (!row || row.client_id !== client.clientId) return false;
      await this.revokeFamilyTokens(row.family_id);
      return true;
    };
    const asAccess = async (): Promise<boolean> => {
      const row = await findByAccessTokenHash(this.db, tokenHash);
      if (!row || row.client_id !== client.clientId) return false;
      await revokeIssuedToken(this.db, row.access_token_id, this.now());
      this.tokens.forget();
      return true;
    };
    const order = hint === 'access_token' ? [asAccess, asRefresh] : [asRefresh, asAccess];
    for (const attempt of order) if (await attempt()) return;
  }

  /** Revokes a family and every access token of it still unexpired, then empties the verifier's cache. */
  private async revokeFamilyTokens(familyId: string): Promise<void> {
    const now = this.now();
    await this.db.transaction().execute(async (trx) => {
      await revokeFamily(trx, familyId, now);
      for (const id of await unexpiredAccessTokenIds(trx, familyId, now)) await revokeIssuedToken(trx, id, now);
    });
    this.tokens.forget();
  }

  /** Deletes logins, codes and families that can no longer be used (expired more than a day ago). */
  async purge(): Promise<number> {
    return purgeExpired(this.db, this.now() - REPLAY_WINDOW_MS);
  }
}

/** Revokes one access token in `tokens`; one already revoked (or purged) is fine. */
async function revokeIssuedToken(db: OAuthDb, tokenId: string, nowMs: number): Promise<void> {
  try {
    await revokeTokenById(db, tokenId, new Date(nowMs));
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
}
