/**
 * The InstanceGateway over the social client (server/platform/social/instance-client.ts): its SSRF
 * rules, timeouts and size caps apply to every call the OAuth flow makes.
 * `socialInstanceGateway(social)` takes the app's SocialServices; the core,
 * `instanceClientGateway(client, parseAddress)`, needs only the little of them it uses.
 *
 * The client's typed errors are read by their HTTP meaning: 5xx (unavailable: unreachable,
 * timed out, failing, oversized) → `unavailable`; an address error (a name or address it
 * will not connect to) → `refused`; any other 4xx (the instance said no) → `rejected`.
 */
import { SOCIAL_ACCOUNT_ID } from '../../src/auth/user-account.js';
import { AppError } from '../../src/errors.js';
import { InstanceAddressError, parseInstanceAddress, type SocialServices } from '../platform/social/social.service.js';
import { InstanceGatewayError, type InstanceAccount, type InstanceAppCredentials, type InstanceGateway } from './instance-gateway.js';

/** What the client's address parser returns (server/platform/social/instance-address.ts's InstanceAddress). */
export interface SocialAddress {
  /** Canonical `host[:port]`. */
  readonly host: string;
  /** `https://host[:port]` (`http://` only with insecure instances allowed). */
  readonly origin: string;
}

/** The one method of the social client this file calls. */
export interface SocialClientPort<A extends SocialAddress> {
  request(
    address: A,
    request: { readonly method: 'GET' | 'POST'; readonly path: string; readonly token?: string; readonly body?: unknown },
  ): Promise<{ readonly status: number; readonly body: unknown }>;
}

function classify(error: unknown, what: string): never {
  if (error instanceof InstanceGatewayError) throw error;
  if (!(error instanceof AppError)) throw error;
  if (error.statusCode >= 500) throw new InstanceGatewayError('unavailable', `${what}: ${error.message}`);
  if (error instanceof InstanceAddressError) throw new InstanceGatewayError('refused', error.message);
  throw new InstanceGatewayError('rejected', `${what}: ${error.message}`);
}

function stringField(body: unknown, name: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[name];
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return typeof value === 'string' && value.length > 0 && value.length <= 4096 ? value : undefined;
}

export function instanceClientGateway<A extends SocialAddress>(
  client: SocialClientPort<A>,
  parseAddress: (name: string) => A,
): InstanceGateway {
  const address = (name: string): A => {
    try {
      return parseAddress(name);
    } catch (error) {
      if (error instanceof AppError && error.statusCode < 500) throw new InstanceGatewayError('refused', error.message);
      throw error;
    }
  };
  const call = async (instance: string, what: string, request: Parameters<SocialClientPort<A>['request']>[1]): Promise<unknown> => {
    try {
      return (await client.request(address(instance), request)).body;
    } catch (error) {
      return classify(error, what);
    }
  };

  return {
    canonicalInstance: (name) => address(name).host,

    async registerApp(instance, app): Promise<InstanceAppCredentials> {
      const body = await call(instance, 'app registration', {
        method: 'POST',
        path: '/api/v1/apps',
        body: {
          client_name: app.clientName,
          redirect_uris: app.redirectUri,
          scopes: app.scopes,
          ...(app.website ? { website: app.website } : {}),
        },
      });
      const clientId = stringField(body, 'client_id');
      const clientSecret = stringField(body, 'client_secret');
      if (clientId === undefined || clientSecret === undefined) {
        throw new InstanceGatewayError('unavailable', 'app registration: the answer has no client_id and client_secret');
      }
      return { clientId, clientSecret };
    },

    authorizeUrl(instance, params) {
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: params.clientId,
        redirect_uri: params.redirectUri,
        scope: params.scopes,
        state: params.state,
      });
      return `${address(instance).origin}/oauth/authorize?${query.toString()}`;
    },

    async exchangeCode(instance, params) {
      const body = await call(instance, 'code exchange', {
        method: 'POST',
        path: '/oauth/token',
        body: {
          grant_type: 'authorization_code',
          code: params.code,
          client_id: params.credentials.clientId,
          client_secret: params.credentials.clientSecret,
          redirect_uri: params.redirectUri,
          scope: params.scopes,
        },
      });
      const accessToken = stringField(body, 'access_token');
      if (accessToken === undefined) throw new InstanceGatewayError('unavailable', 'code exchange: the answer has no access_token');
      return { accessToken };
    },

    async verifyCredentials(instance, accessToken): Promise<InstanceAccount> {
      const body = await call(instance, 'verify_credentials', {
        method: 'GET',
        path: '/api/v1/accounts/verify_credentials',
        token: accessToken,
      });
      const id = stringField(body, 'id');
      if (id === undefined || !SOCIAL_ACCOUNT_ID.test(id)) {
        throw new InstanceGatewayError('unavailable', 'verify_credentials: the answer is not an account');
      }
      return { id, acct: stringField(body, 'acct') ?? stringField(body, 'username') ?? id };
    },
  };
}

/** The gateway over the app's social services (its client, and its insecure-instances setting). */
export function socialInstanceGateway(social: Pick<SocialServices, 'client' | 'options'>): InstanceGateway {
  return instanceClientGateway(social.client, (name) => parseInstanceAddress(name, { allowInsecure: social.options.allowInsecure }));
}
