/**
 * What the OAuth flow needs from a Mastodon instance: register this service as an app there,
 * send the user to its login page, exchange the code it gives back, and learn whose account
 * it is. The implementation over the social client (SSRF rules, timeouts, size caps) is
 * handed in by the composition root; tests hand in the test instance.
 */

/** This service's credentials as an app on an instance. */
export interface InstanceAppCredentials {
  clientId: string;
  clientSecret: string;
}

/** The part of a Mastodon Account the flow uses. */
export interface InstanceAccount {
  /** The account's id on its instance. */
  id: string;
  /** The account's `acct` as the instance reports it. */
  acct: string;
}

export interface InstanceGateway {
  /**
   * The canonical `host[:port]` of an instance name (lowercase, IDNA, default port left out),
   * the instance part of user ids; InstanceGatewayError `refused` when the service will not
   * connect to it (the SSRF rules).
   */
  canonicalInstance(name: string): string;
  /** Registers an app (POST /api/v1/apps) with one redirect URI and the scopes asked for. */
  registerApp(
    instance: string,
    app: { clientName: string; redirectUri: string; scopes: string; website?: string },
  ): Promise<InstanceAppCredentials>;
  /** The instance's `/oauth/authorize` URL with these parameters (`response_type=code`). */
  authorizeUrl(instance: string, params: { clientId: string; redirectUri: string; scopes: string; state: string }): string;
  /** Exchanges the instance's authorization code (POST /oauth/token) for the user's access token there. */
  exchangeCode(
    instance: string,
    params: { credentials: InstanceAppCredentials; redirectUri: string; code: string; scopes: string },
  ): Promise<{ accessToken: string }>;
  /** The account of an access token (GET /api/v1/accounts/verify_credentials). */
  verifyCredentials(instance: string, accessToken: string): Promise<InstanceAccount>;
}

/**
 * Why an instance call failed: `refused` (the instance name is not allowed: SSRF rules, bad
 * host), `rejected` (the instance answered no: a 4xx, a bad code or token), `unavailable`
 * (unreachable, timed out, 5xx, an answer that is not what Mastodon sends).
 */
export type InstanceFailure = 'refused' | 'rejected' | 'unavailable';

export class InstanceGatewayError extends Error {
  constructor(
    readonly failure: InstanceFailure,
    message: string,
  ) {
    super(message);
    this.name = 'InstanceGatewayError';
  }
}
