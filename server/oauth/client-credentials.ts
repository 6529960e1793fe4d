/**
 * Client authentication at the token and revocation endpoints (RFC 6749 §2.3.1): HTTP Basic
 * (`client_secret_basic`, id and secret form-urlencoded before base64) or `client_id` and
 * `client_secret` in the body (`client_secret_post`), never both at once.
 */
import { OAuthError } from './oauth-errors.js';

export interface ClientCredentials {
  clientId: string;
  /** Absent for a public client (`none`: client_id alone, in the body). */
  clientSecret: string | undefined;
}

/** Supported `token_endpoint_auth_methods` (RFC 8414); `none` is a public client's (RFC 7591), PKCE its proof. */
export const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;

function formDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new OAuthError('invalid_client', 'The Basic credentials are not form-urlencoded');
  }
}

/** The client's credentials from the Authorization header or the body; invalid_client (401) when absent or malformed. */
export function clientCredentials(
  authorization: string | undefined,
  body: { client_id?: string; client_secret?: string },
): ClientCredentials {
  const basic = authorization === undefined ? null : /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new OAuthError('invalid_client', 'The Basic credentials must be client_id:client_secret');
    const clientId = formDecode(decoded.slice(0, colon));
    const clientSecret = formDecode(decoded.slice(colon + 1));
    if (body.client_secret !== undefined) {
      throw new OAuthError('invalid_request', 'Send the client credentials either with HTTP Basic or in the body, not both');
    }
    if (body.client_id !== undefined && body.client_id !== clientId) {
      throw new OAuthError('invalid_client', 'client_id in the body differs from the one in the Basic credentials');
    }
    return { clientId, clientSecret };
  }
  if (body.client_id === undefined) {
    throw new OAuthError(
      'invalid_client',
      'Client authentication is required: client_id and client_secret, in the body or with HTTP Basic',
    );
  }
  // client_id alone: a public client (the service checks that it is one).
  return { clientId: body.client_id, clientSecret: body.client_secret };
}
