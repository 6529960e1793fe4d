/**
 * Wire schemas of the OAuth endpoints. Parameters the RFCs call required are optional here
 * and checked by the service, so that a missing one is answered with the right OAuth error
 * (and, at the authorize endpoint, redirected to the client once it is known). Unknown
 * parameters are accepted and ignored (RFC 6749 §3.1).
 */
import { Type, type Static } from '@sinclair/typebox';

const text = (maxLength: number, description?: string) => Type.String({ maxLength, ...(description ? { description } : {}) });
const optional = (maxLength: number, description?: string) => Type.Optional(text(maxLength, description));

/** The OAuth error body (RFC 6749 §5.2), with the service's `message`, `status_code` and `request_id`. */
export const OAuthErrorSchema = Type.Object({
  error: Type.String({ description: 'The OAuth error code, e.g. `invalid_grant`' }),
  error_description: Type.String(),
  message: Type.String({ description: 'The same as error_description' }),
  status_code: Type.Integer(),
  request_id: Type.String(),
});

export const AppRegistrationSchema = Type.Object({
  client_name: Type.String({ minLength: 1, maxLength: 200 }),
  redirect_uris: Type.Union([Type.String({ maxLength: 20_000 }), Type.Array(text(2048), { minItems: 1, maxItems: 10 })], {
    description: 'Absolute URIs, as an array or separated by newlines; authorization requests must name one exactly',
  }),
  scopes: optional(1024, 'Space-separated (default `read`): read, write, follow, push, profile, read:*, write:*'),
  website: Type.Optional(Type.Union([text(2048), Type.Null()])),
  token_endpoint_auth_method: Type.Optional(
    Type.Union([Type.Literal('client_secret_basic'), Type.Literal('client_secret_post'), Type.Literal('none')], {
      description: '`none`: a public client (RFC 7591), which gets no secret and proves each code with PKCE alone',
    }),
  ),
});
export type AppRegistration = Static<typeof AppRegistrationSchema>;

/** Mastodon's CredentialApplication (4.3): the secret is shown only here. */
export const ApplicationSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  website: Type.Union([Type.String(), Type.Null()]),
  scopes: Type.Array(Type.String()),
  redirect_uri: Type.String({ description: 'The redirect URIs separated by newlines (deprecated in Mastodon, kept for older clients)' }),
  redirect_uris: Type.Array(Type.String()),
  client_id: Type.String(),
  client_secret: Type.Optional(Type.String({ description: 'Absent for a public client' })),
  client_secret_expires_at: Type.Integer({ description: 'Always 0: secrets do not expire' }),
});

export const AuthorizeQuerySchema = Type.Object({
  response_type: optional(32, 'Must be `code`'),
  client_id: optional(256),
  redirect_uri: optional(2048, 'Exactly one of the registered redirect URIs'),
  scope: optional(1024, 'Space-separated; within the scopes the client registered (default `read`)'),
  state: optional(1024, 'Returned unchanged to the client'),
  code_challenge: optional(128, 'PKCE: base64url(SHA-256(code_verifier)), required'),
  code_challenge_method: optional(16, 'Must be `S256` (`plain` is refused)'),
  instance: optional(260, "The user's Mastodon instance (host[:port]); the configured default instance when absent"),
});
export type AuthorizeQuery = Static<typeof AuthorizeQuerySchema>;

export const CallbackQuerySchema = Type.Object({
  code: optional(1024),
  state: optional(256),
  error: optional(256),
  error_description: optional(2048),
});

/** The consent page's form. */
export const ConsentAnswerSchema = Type.Object({
  ticket: optional(256, "The consent page's one-time ticket"),
  decision: optional(16, '`approve` or `deny`'),
});

const clientAuth = {
  client_id: optional(256, 'With client_secret, unless sent with HTTP Basic'),
  client_secret: optional(256),
};

export const TokenRequestSchema = Type.Object({
  grant_type: optional(64, '`authorization_code` or `refresh_token`'),
  code: optional(512),
  redirect_uri: optional(2048, 'authorization_code: the redirect URI of the authorization request, exactly'),
  code_verifier: optional(256, 'authorization_code: the PKCE verifier'),
  refresh_token: optional(512),
  scope: optional(1024, 'refresh_token: a narrower scope for the new access token'),
  ...clientAuth,
});
export type TokenRequest = Static<typeof TokenRequestSchema>;

export const TokenResponseSchema = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'Seconds the access token lives (86400 by default)' }),
  refresh_token: Type.String({ description: 'Single-use: each refresh returns a new one' }),
  scope: Type.String(),
  created_at: Type.Integer({ description: 'Epoch seconds (Mastodon)' }),
});

export const RevokeRequestSchema = Type.Object({
  token: optional(512),
  token_type_hint: optional(32, '`access_token` or `refresh_token`'),
  ...clientAuth,
});
export type RevokeRequest = Static<typeof RevokeRequestSchema>;

/** RFC 8414 metadata, with Mastodon's `app_registration_endpoint`. */
export const ServerMetadataSchema = Type.Object({
  issuer: Type.String(),
  authorization_endpoint: Type.String(),
  token_endpoint: Type.String(),
  revocation_endpoint: Type.String(),
  app_registration_endpoint: Type.String(),
  scopes_supported: Type.Array(Type.String()),
  response_types_supported: Type.Array(Type.String()),
  response_modes_supported: Type.Array(Type.String()),
  grant_types_supported: Type.Array(Type.String()),
  code_challenge_methods_supported: Type.Array(Type.String()),
  token_endpoint_auth_methods_supported: Type.Array(Type.String()),
  revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
});
