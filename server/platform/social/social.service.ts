/**
 * The social side's declared interface (what app.ts and other feature folders import):
 * one pooled instance client and the Mastodon-token identity provider built on it, from
 * the settings of ./social-options.ts. One per app; `close()` on shutdown.
 */
import type { Resolver } from './instance-address.js';
import { InstanceClient } from './instance-client.js';
import { MastodonIdentityProvider } from './mastodon-identity.js';
import { DEFAULT_SOCIAL_OPTIONS, type SocialOptions } from './social-options.js';

export {
  INSTANCE_HEADER,
  InstanceAddressError,
  parseInstanceAddress,
  systemResolver,
  type InstanceAddress,
  type Resolver,
} from './instance-address.js';
export {
  FORWARDED_RESPONSE_HEADERS,
  InstanceClient,
  InstanceForbiddenError,
  InstanceNotFoundError,
  InstanceRequestError,
  InstanceTokenRejectedError,
  InstanceUnavailableError,
  type InstanceRequest,
  type InstanceResponse,
} from './instance-client.js';
export { MastodonIdentityProvider, type SocialAccount, type VerifiedSocialToken } from './mastodon-identity.js';
export { DEFAULT_SOCIAL_OPTIONS, socialOptionsFromEnv, type SocialOptions } from './social-options.js';

export interface SocialServices {
  readonly options: SocialOptions;
  /** Talks to instances under the SSRF rules (or without them in insecure mode). */
  readonly client: InstanceClient;
  /** Mastodon tokens → identities; goes after the service-token provider. */
  readonly identityProvider: MastodonIdentityProvider;
  close(): Promise<void>;
}

export interface SocialDependencies {
  /** DNS for instance names (tests stub it). */
  readonly resolver?: Resolver;
  readonly now?: () => number;
}

/** Builds the client and the identity provider from the settings. */
export function createSocialServices(
  options: SocialOptions = DEFAULT_SOCIAL_OPTIONS,
  dependencies: SocialDependencies = {},
): SocialServices {
  const client = new InstanceClient({
    allowInsecure: options.allowInsecure,
    connectTimeoutMs: options.connectTimeoutMs,
    headersTimeoutMs: options.headersTimeoutMs,
    bodyTimeoutMs: options.bodyTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs,
    maxResponseBytes: options.maxResponseBytes,
    ...(dependencies.resolver ? { resolver: dependencies.resolver } : {}),
  });
  const identityProvider = new MastodonIdentityProvider({
    client,
    defaultInstance: options.defaultInstance,
    cacheTtlMs: options.tokenCacheTtlMs,
    cacheCapacity: options.tokenCacheCapacity,
    staleTtlMs: options.tokenStaleTtlMs,
    ...(dependencies.now ? { now: dependencies.now } : {}),
  });
  return {
    options,
    client,
    identityProvider,
    close: () => client.close(),
  };
}
