/** Table types of the OAuth feature (migrations 0016-oauth, 0017-oauth-consents). Epoch milliseconds in `*_ms`. */
export interface OAuthClientsTable {
  client_id: string;
  /** The Mastodon-style `id` of the app (not a secret). */
  id: string;
  /** SHA-256 of the client secret: the secret itself is shown once, at registration. */
  client_secret_hash: string;
  name: string;
  website: string | null;
  /** Newline-separated, each exactly as registered. */
  redirect_uris: string;
  /** Space-separated. */
  scopes: string;
  created_at_ms: number;
}

/** This service's registration as an app on an instance, per callback URL. */
export interface OAuthInstanceAppsTable {
  instance: string;
  redirect_uri: string;
  client_id: string;
  /** Kept as given: the service presents it to the instance to exchange codes. */
  client_secret: string;
  scopes: string;
  created_at_ms: number;
}

/** An authorization waiting for the user to come back from their instance. */
export interface OAuthLoginsTable {
  /** SHA-256 of the `state` sent to the instance. */
  state_hash: string;
  client_id: string;
  redirect_uri: string;
  scopes: string;
  /** The client's own `state`, echoed back to it. */
  client_state: string | null;
  code_challenge: string;
  instance: string;
  instance_redirect_uri: string;
  created_at_ms: number;
  expires_at_ms: number;
  used_at_ms: number | null;
}

/** An authorization back from the instance, waiting for the user to approve or deny it on the consent page. */
export interface OAuthConsentsTable {
  /** SHA-256 of the one-time ticket in the consent page's form. */
  ticket_hash: string;
  client_id: string;
  redirect_uri: string;
  scopes: string;
  client_state: string | null;
  code_challenge: string;
  user_id: string;
  /** The account as shown on the page (`@name@instance`). */
  account: string;
  created_at_ms: number;
  expires_at_ms: number;
  used_at_ms: number | null;
}

export interface OAuthCodesTable {
  code_hash: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  user_id: string;
  scopes: string;
  created_at_ms: number;
  expires_at_ms: number;
  used_at_ms: number | null;
}

/** The tokens descended from one authorization code. */
export interface OAuthTokenFamiliesTable {
  id: string;
  client_id: string;
  user_id: string;
  scopes: string;
  code_hash: string | null;
  created_at_ms: number;
  revoked_at_ms: number | null;
}

/** One token response: its refresh token (hash) and the access token issued with it (a `tokens` row). */
export interface OAuthRefreshTokensTable {
  token_hash: string;
  family_id: string;
  access_token_id: string;
  access_token_hash: string;
  access_expires_at_ms: number;
  created_at_ms: number;
  expires_at_ms: number;
  /** When it was exchanged for the next one (rotation); a second use is a reuse. */
  used_at_ms: number | null;
}

export interface OAuthTables {
  oauth_clients: OAuthClientsTable;
  oauth_instance_apps: OAuthInstanceAppsTable;
  oauth_logins: OAuthLoginsTable;
  oauth_consents: OAuthConsentsTable;
  oauth_codes: OAuthCodesTable;
  oauth_token_families: OAuthTokenFamiliesTable;
  oauth_refresh_tokens: OAuthRefreshTokensTable;
}

// These tables join the service's one `Database` type (server/platform/db/database.ts).
declare module '../platform/db/database.js' {
  interface Database extends OAuthTables {}
}
