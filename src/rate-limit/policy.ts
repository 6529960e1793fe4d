/**
 * Rate-limit policy of the spec (Limits): per-tier windows, and stricter windows
 * shared by every route of an endpoint group. Pure data and lookups; the counting
 * lives in the server's store.
 */
import type { Tier } from '../auth/identity.js';

export interface WindowLimit {
  /** Window length in seconds. */
  readonly seconds: number;
  readonly max: number;
}

export const ENDPOINT_GROUPS = ['recommendations', 'analytics', 'rag'] as const;
export type EndpointGroup = (typeof ENDPOINT_GROUPS)[number];

export interface RateLimitPolicy {
  readonly tiers: Record<Tier, readonly WindowLimit[]>;
  readonly groups: Record<EndpointGroup, readonly WindowLimit[]>;
  /**
   * Mastodon API calls made through the service (the proxy, drop-in mode's forwarding, the
   * blended timelines): limited like Mastodon limits them, instead of the tier's windows
   * (default MASTODON_API_LIMITS).
   */
  readonly mastodon?: readonly WindowLimit[];
  /**
   * The FASP provider's routes (server/fasp: signed calls of registered Mastodon servers, and the
   * actor and WebFinger its fetches point to), per calling address, instead of the tier's
   * windows (default FASP_LIMITS).
   */
  readonly fasp?: readonly WindowLimit[];
}

/** Mastodon's default limit of API calls: 300 per 5 minutes per token (or address). */
export const MASTODON_API_LIMITS: readonly WindowLimit[] = [{ seconds: 300, max: 300 }];

/**
 * A Mastodon server calling the FASP provider: 300 calls per 5 minutes per address, what Mastodon
 * allows a caller of its own API. The anonymous tier (20 a minute) would refuse a busy server's
 * data-sharing announcements; a FASP server is not an anonymous browser.
 */
export const FASP_LIMITS: readonly WindowLimit[] = [{ seconds: 300, max: 300 }];

const MINUTE = 60;
const HOUR = 3600;

/** The spec's limits: tiers 20/1000, 60/2000, 120/5000; groups 30/500, 20/200, 10/100 per minute/hour. */
export const DEFAULT_RATE_LIMIT_POLICY: RateLimitPolicy = {
  tiers: {
    anonymous: [
      { seconds: MINUTE, max: 20 },
      { seconds: HOUR, max: 1000 },
    ],
    authenticated: [
      { seconds: MINUTE, max: 60 },
      { seconds: HOUR, max: 2000 },
    ],
    premium: [
      { seconds: MINUTE, max: 120 },
      { seconds: HOUR, max: 5000 },
    ],
  },
  groups: {
    recommendations: [
      { seconds: MINUTE, max: 30 },
      { seconds: HOUR, max: 500 },
    ],
    analytics: [
      { seconds: MINUTE, max: 20 },
      { seconds: HOUR, max: 200 },
    ],
    rag: [
      { seconds: MINUTE, max: 10 },
      { seconds: HOUR, max: 100 },
    ],
  },
};

const GROUP_PREFIXES: ReadonlyArray<readonly [string, EndpointGroup]> = [
  ['/api/v1/recommendations', 'recommendations'],
  ['/api/v1/analytics', 'analytics'],
  ['/api/v1/rag', 'rag'],
];

/** The service's routes that are Mastodon API calls to the caller's instance (their route patterns). */
const MASTODON_ROUTE_PREFIXES = ['/api/v1/proxy/', '/api/v1/timelines/'];
/** Prefixes drop-in mode forwards when no route of the service matches (server/proxy/proxy.routes.ts). */
const DROP_IN_PREFIXES = ['/api/v1/', '/api/v2/', '/oauth/'];

/**
 * True when a request is a Mastodon API call through the service: a route of the proxy or the
 * timelines (by its pattern), or, when `forwarded` (drop-in mode, for a Mastodon token's holder),
 * a path no route matched under a prefix drop-in mode forwards (by its path; `routeUrl` undefined).
 */
export function isMastodonCall(routeUrl: string | undefined, path: string, forwarded: boolean): boolean {
  if (routeUrl !== undefined) return MASTODON_ROUTE_PREFIXES.some((prefix) => routeUrl.startsWith(prefix));
  return forwarded && DROP_IN_PREFIXES.some((prefix) => path.startsWith(prefix));
}

/** Paths never limited, so monitors are never throttled. */
const EXEMPT_PATHS = new Set(['/api/v1/health']);

/** Paths outside /api/v1 that are limited: drop-in mode's nodeinfo discovery asks another server for anyone. */
const LIMITED_PATHS = new Set(['/.well-known/nodeinfo']);

/** True when a request path is subject to rate limits (every /api/v1 route but health, and nodeinfo discovery). */
export function isRateLimitedPath(path: string): boolean {
  return ((path === '/api/v1' || path.startsWith('/api/v1/')) && !EXEMPT_PATHS.has(path)) || LIMITED_PATHS.has(path);
}

/** The endpoint group whose shared limits apply to a path, if any. */
export function groupOfPath(path: string): EndpointGroup | undefined {
  for (const [prefix, group] of GROUP_PREFIXES) {
    if (path === prefix || path.startsWith(`${prefix}/`)) return group;
  }
  return undefined;
}

/** Scales every window's max by a factor (tests use small limits), at least 1. */
export function scalePolicy(policy: RateLimitPolicy, factor: number): RateLimitPolicy {
  const scale = (windows: readonly WindowLimit[]): WindowLimit[] =>
    windows.map((w) => ({ seconds: w.seconds, max: Math.max(1, Math.floor(w.max * factor)) }));
  return {
    tiers: {
      anonymous: scale(policy.tiers.anonymous),
      authenticated: scale(policy.tiers.authenticated),
      premium: scale(policy.tiers.premium),
    },
    groups: {
      recommendations: scale(policy.groups.recommendations),
      analytics: scale(policy.groups.analytics),
      rag: scale(policy.groups.rag),
    },
    mastodon: scale(policy.mastodon ?? MASTODON_API_LIMITS),
    fasp: scale(policy.fasp ?? FASP_LIMITS),
  };
}
