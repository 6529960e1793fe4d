/**
 * `/api/v1/oauth`: client registration, the authorization endpoint, its callback from the
 * user's instance (which shows the consent page) and the consent answer, the token and
 * revocation endpoints; `/.well-known/oauth-authorization-server`.
 * All public: clients authenticate with their own credentials where the RFCs say so. Errors
 * are OAuth error bodies (oauth-errors.ts); the authorize endpoint redirects them to the
 * client once the client and its redirect URI are verified, and answers 400 itself before.
 * Bodies may be form-urlencoded (RFC 6749) or JSON (as Mastodon accepts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { publicBaseUrl } from '../platform/http/public-url.js';
import { CLIENT_AUTH_METHODS, clientCredentials } from './client-credentials.js';
import { consentPageHeaders, renderConsentPage } from './consent-page.js';
import { acceptFormBodies, isFormBody } from './form-body.js';
import { InstanceGatewayError } from './instance-gateway.js';
import { asOAuthError, OAuthError, sendOAuthError } from './oauth-errors.js';
import { SUPPORTED_SCOPES } from './oauth-scopes.js';
import {
  AppRegistrationSchema,
  ApplicationSchema,
  AuthorizeQuerySchema,
  CallbackQuerySchema,
  ConsentAnswerSchema,
  OAuthErrorSchema,
  RevokeRequestSchema,
  ServerMetadataSchema,
  TokenRequestSchema,
  TokenResponseSchema,
} from './oauth.schema.js';
import { withQuery, type LoginOutcome, type OAuthService } from './oauth.service.js';

export const OAUTH_PREFIX = '/api/v1/oauth';
const CALLBACK_PATH = `${OAUTH_PREFIX}/callback`;
const CONSENT_PATH = `${OAUTH_PREFIX}/consent`;

const oauthError = (description: string) => ({ ...OAuthErrorSchema, description });
const BAD_REQUEST = oauthError(
  '`invalid_request` (also 413/415 for an oversized or non-form, non-JSON body) and the other OAuth error codes',
);
const BAD_CLIENT = oauthError('`invalid_client`: unknown client or wrong secret; `WWW-Authenticate: Basic`');
const REDIRECT = Type.Null({ description: 'Redirect (Location header)' });
const CONSENT_PAGE = {
  description: 'The consent page (HTML, not framable)',
  content: { 'text/html': { schema: Type.String() } },
};

/** Token responses and errors must not be cached (RFC 6749 §5.1). */
function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

export const oauthRoutes: FastifyPluginAsyncTypebox<{ oauth: OAuthService }> = async (app, { oauth }) => {
  acceptFormBodies(app);
  // OAuth failures leave as OAuth error bodies; what is not about the request (429, 5xx)
  // goes on to the app's own handler (an error thrown here reaches the parent's).
  app.setErrorHandler((error, request, reply) => {
    const oauthFailure = asOAuthError(error);
    if (!oauthFailure) throw error;
    return sendOAuthError(request, reply, oauthFailure);
  });

  app.post(
    `${OAUTH_PREFIX}/apps`,
    {
      config: { access: 'public' },
      schema: {
        tags: ['oauth'],
        summary: 'Register a client app (Mastodon-shaped); the client secret is shown only in this answer',
        operationId: 'createOAuthApp',
        body: AppRegistrationSchema,
        response: {
          200: ApplicationSchema,
          400: oauthError('`invalid_redirect_uri`, `invalid_client_metadata`, `invalid_scope`, `invalid_request`'),
        },
      },
    },
    async (request, reply) => {
      const { client_name, redirect_uris, scopes, website, token_endpoint_auth_method } = request.body;
      const client = await oauth.registerClient({
        clientName: client_name,
        redirectUris: redirect_uris,
        scopes,
        website: website ?? undefined,
        publicClient: token_endpoint_auth_method === 'none',
      });
      return noStore(reply).send({
        id: client.id,
        name: client.name,
        website: client.website,
        scopes: client.scopes,
        redirect_uri: client.redirectUris.join('\n'),
        redirect_uris: client.redirectUris,
        client_id: client.clientId,
        ...(client.clientSecret === undefined ? {} : { client_secret: client.clientSecret }),
        client_secret_expires_at: 0,
      });
    },
  );

  app.get(
    `${OAUTH_PREFIX}/authorize`,
    {
      config: { access: 'public' },
      // A GET here starts a login (rows, maybe a registration at the instance): no implicit HEAD.
      exposeHeadRoute: false,
      schema: {
        tags: ['oauth'],
        summary: "Start the authorization code flow (PKCE S256 required): the user is sent to their instance's login page",
        description:
          'Unknown client or unregistered redirect_uri: 400 here. Any other error is redirected to the redirect_uri ' +
          'with `error`, `error_description` and `state`. On success the user comes back through the callback, which ' +
          'redirects to the redirect_uri with `code` and `state`.',
        operationId: 'authorizeOAuth',
        querystring: AuthorizeQuerySchema,
        response: { 302: REDIRECT, 400: BAD_REQUEST },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const client = await oauth.clientForAuthorization(query.client_id, query.redirect_uri);
      const redirectUri = query.redirect_uri!;
      let location: string;
      try {
        location = await oauth.startLogin(
          client,
          redirectUri,
          {
            responseType: query.response_type,
            scope: query.scope,
            state: query.state,
            codeChallenge: query.code_challenge,
            codeChallengeMethod: query.code_challenge_method,
            instance: query.instance,
          },
          `${publicBaseUrl(request)}${CALLBACK_PATH}`,
        );
      } catch (error) {
        location = withQuery(redirectUri, { ...redirectedError(request, error), state: query.state });
      }
      return noStore(reply).redirect(location, 302);
    },
  );

  app.get(
    CALLBACK_PATH,
    {
      config: { access: 'public' },
      exposeHeadRoute: false,
      schema: {
        tags: ['oauth'],
        summary: "Where the user's instance sends them back: verifies the account, then asks the user to approve the client",
        description:
          'Answers the consent page (HTML): the client app, the requested scopes, the account and where the answer goes, ' +
          'with a one-time ticket for POST /api/v1/oauth/consent. Failures at the instance are redirected to the client.',
        operationId: 'oauthCallback',
        querystring: CallbackQuerySchema,
        response: { 200: CONSENT_PAGE, 302: REDIRECT, 400: BAD_REQUEST },
      },
    },
    async (request, reply) => {
      const { state, code, error } = request.query;
      let outcome: LoginOutcome;
      try {
        outcome = await oauth.completeLogin({ state, code, error });
      } catch (failure) {
        if (failure instanceof OAuthError) throw failure;
        request.log.error({ err: failure }, 'OAuth callback failed');
        throw new OAuthError('server_error', 'The login could not be completed: start again from the app');
      }
      if (outcome.consent) return reply.headers(consentPageHeaders(outcome.consent)).send(renderConsentPage(outcome.consent));
      return noStore(reply).redirect(outcome.redirect, 302);
    },
  );

  app.post(
    CONSENT_PATH,
    {
      config: { access: 'public' },
      schema: {
        tags: ['oauth'],
        summary: "The user's answer on the consent page: approve redirects to the client with a code, deny with access_denied",
        description:
          'A form post from the consent page. Its one-time ticket is the only thing that authorises the answer: an unknown, ' +
          'answered or expired ticket is 400 and issues nothing. Redirects (303) to the redirect_uri with `code` and `state`, ' +
          'or `error=access_denied` and `state`.',
        operationId: 'answerOAuthConsent',
        consumes: ['application/x-www-form-urlencoded'],
        body: ConsentAnswerSchema,
        response: { 303: REDIRECT, 400: BAD_REQUEST },
      },
    },
    async (request, reply) => {
      if (!isFormBody(request)) {
        throw new OAuthError('invalid_request', 'The consent is answered with the form of the consent page', 415);
      }
      const location = await oauth.decideConsent(request.body.ticket, request.body.decision);
      return noStore(reply).redirect(location, 303);
    },
  );

  // A GET must never decide a consent (links, prefetching, images): refused, not left to the drop-in proxy.
  app.get(CONSENT_PATH, { config: { access: 'public' }, schema: { hide: true } }, async (_request, reply) => {
    reply.header('allow', 'POST');
    throw new OAuthError('invalid_request', 'The consent is answered with the form of the consent page (POST)', 405);
  });

  app.post(
    `${OAUTH_PREFIX}/token`,
    {
      config: { access: 'public' },
      schema: {
        tags: ['oauth'],
        summary: 'Exchange an authorization code (with its PKCE verifier) or a refresh token for tokens',
        description:
          'Client credentials with HTTP Basic or in the body. A code is single-use: presenting it again revokes the ' +
          'tokens issued for it. A refresh token is single-use too (rotation): presenting a spent one revokes its family.',
        operationId: 'createOAuthToken',
        body: TokenRequestSchema,
        response: {
          200: TokenResponseSchema,
          400: oauthError('`invalid_request`, `invalid_grant`, `unsupported_grant_type`, `invalid_scope`'),
          401: BAD_CLIENT,
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const client = await oauth.authenticateClient(clientCredentials(request.headers.authorization, body));
      noStore(reply);
      switch (body.grant_type) {
        case 'authorization_code':
          return oauth.redeemCode(client, { code: body.code, redirectUri: body.redirect_uri, codeVerifier: body.code_verifier });
        case 'refresh_token':
          return oauth.refresh(client, { refreshToken: body.refresh_token, scope: body.scope });
        case undefined:
        case '':
          throw new OAuthError('invalid_request', 'grant_type is required');
        default:
          throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
      }
    },
  );

  app.post(
    `${OAUTH_PREFIX}/revoke`,
    {
      config: { access: 'public' },
      schema: {
        tags: ['oauth'],
        summary: 'Revoke an access or refresh token (RFC 7009); a refresh token takes its whole family with it',
        description: 'Answers 200 for unknown tokens and for tokens of other clients too, which are left alone.',
        operationId: 'revokeOAuthToken',
        body: RevokeRequestSchema,
        response: { 200: Type.Object({}), 400: BAD_REQUEST, 401: BAD_CLIENT },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const client = await oauth.authenticateClient(clientCredentials(request.headers.authorization, body));
      if (body.token === undefined || body.token === '') throw new OAuthError('invalid_request', 'token is required');
      await oauth.revoke(client, body.token, body.token_type_hint);
      return noStore(reply).send({});
    },
  );

  app.get(
    '/.well-known/oauth-authorization-server',
    {
      config: { access: 'public' },
      schema: {
        tags: ['oauth'],
        summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
        operationId: 'getOAuthServerMetadata',
        response: { 200: ServerMetadataSchema },
      },
    },
    async (request) => {
      const base = publicBaseUrl(request);
      return {
        issuer: base,
        authorization_endpoint: `${base}${OAUTH_PREFIX}/authorize`,
        token_endpoint: `${base}${OAUTH_PREFIX}/token`,
        revocation_endpoint: `${base}${OAUTH_PREFIX}/revoke`,
        app_registration_endpoint: `${base}${OAUTH_PREFIX}/apps`,
        scopes_supported: [...SUPPORTED_SCOPES],
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
        revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
      };
    },
  );
};

/** The OAuth error an authorization failure is redirected to the client with. */
function redirectedError(request: FastifyRequest, error: unknown): { error: string; error_description: string } {
  if (error instanceof OAuthError) return { error: error.code, error_description: error.message };
  if (error instanceof InstanceGatewayError) {
    if (error.failure === 'unavailable') {
      return { error: 'temporarily_unavailable', error_description: 'The instance could not be reached: try again later' };
    }
    const description =
      error.failure === 'refused' ? 'The service does not connect to this instance' : 'The instance refused the app registration';
    return { error: 'invalid_request', error_description: description };
  }
  request.log.error({ err: error }, 'OAuth authorization failed');
  return { error: 'server_error', error_description: 'The authorization could not be started' };
}
