/**
 * The social side's settings, read from RECSVC_* environment variables and validated
 * here, so `serve` fails fast on a bad one (an InputError: exit 2, like ConfigError).
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | RECSVC_DEFAULT_INSTANCE | none | instance of Mastodon tokens sent without `X-Social-Instance` |
 * | RECSVC_ALLOW_INSECURE_INSTANCES | 0 | `1`: plain HTTP, IP literals and private addresses allowed (local tests only) |
 * | RECSVC_INSTANCE_CONNECT_TIMEOUT_MS | 5000 | connection (TCP and TLS) to an instance |
 * | RECSVC_INSTANCE_HEADERS_TIMEOUT_MS | 5000 | wait for an instance's response headers |
 * | RECSVC_INSTANCE_BODY_TIMEOUT_MS | 5000 | longest silence inside an instance's response body |
 * | RECSVC_INSTANCE_REQUEST_TIMEOUT_MS | 10000 | a whole exchange with an instance |
 * | RECSVC_INSTANCE_MAX_RESPONSE_BYTES | 2097152 | largest instance response read |
 * | RECSVC_SOCIAL_TOKEN_CACHE_SECONDS | 300 | how long a verified Mastodon token is trusted |
 * | RECSVC_SOCIAL_TOKEN_CACHE_SIZE | 10000 | Mastodon tokens remembered |
 * | RECSVC_SOCIAL_TOKEN_STALE_SECONDS | 3600 | how long after its verification a token still opens its timelines while its instance is down |
 * | RECSVC_INSTANCE_NEW_POSTS_PER_HOUR | 3000 | new posts one instance's pages may add to the shared store per hour (docs/federation.md) |
 * | RECSVC_TIMELINE_RECOMMENDATIONS | boost | `boost`: recommendations woven into timelines as boosts by a service account; `inline`: as the statuses themselves (docs/clients.md) |
 *
 * The stale bound: while an instance is down nobody can say whether a token was revoked
 * meanwhile, so its last verified identity is used only by the timelines (which then
 * answer from the service's own store, flagged X-Recsvc-Degraded, and never reach the
 * instance with it), and for at most an hour after that verification: long enough for a
 * typical outage, short enough that a token revoked just before one is not honoured for
 * long. Below the cache lifetime it counts as the cache lifetime.
 */
import { InputError } from '../../../src/errors.js';
import { MAX_TIMER_MS, MAX_TIMER_SECONDS, parseDurationSetting } from '../duration-setting.js';
import { InstanceAddressError, parseInstanceAddress } from './instance-address.js';
import { DEFAULT_INSTANCE_CLIENT_OPTIONS } from './instance-client.js';
import { DEFAULT_MASTODON_IDENTITY_OPTIONS } from './mastodon-identity.js';

export interface SocialOptions {
  /** Canonical `host[:port]` of the default instance, when one is set. */
  readonly defaultInstance: string | undefined;
  readonly allowInsecure: boolean;
  readonly connectTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly maxResponseBytes: number;
  readonly tokenCacheTtlMs: number;
  readonly tokenCacheCapacity: number;
  /** How long after its verification a Mastodon token's identity may serve degraded timelines. */
  readonly tokenStaleTtlMs: number;
  /** New posts one instance's pages may add per hour. */
  readonly newPostsPerHour: number;
  /** How timelines weave recommendations in (server/timelines/recommendation-boosts.ts). */
  readonly timelineRecommendations: 'boost' | 'inline';
}

type Env = Readonly<Record<string, string | undefined>>;

/** The defaults: no default instance, HTTPS only, short timeouts, 5-minute token cache. */
export const DEFAULT_SOCIAL_OPTIONS: SocialOptions = {
  defaultInstance: undefined,
  allowInsecure: false,
  connectTimeoutMs: DEFAULT_INSTANCE_CLIENT_OPTIONS.connectTimeoutMs,
  headersTimeoutMs: DEFAULT_INSTANCE_CLIENT_OPTIONS.headersTimeoutMs,
  bodyTimeoutMs: DEFAULT_INSTANCE_CLIENT_OPTIONS.bodyTimeoutMs,
  requestTimeoutMs: DEFAULT_INSTANCE_CLIENT_OPTIONS.requestTimeoutMs,
  maxResponseBytes: DEFAULT_INSTANCE_CLIENT_OPTIONS.maxResponseBytes,
  tokenCacheTtlMs: DEFAULT_MASTODON_IDENTITY_OPTIONS.cacheTtlMs,
  tokenCacheCapacity: DEFAULT_MASTODON_IDENTITY_OPTIONS.cacheCapacity,
  tokenStaleTtlMs: DEFAULT_MASTODON_IDENTITY_OPTIONS.staleTtlMs,
  newPostsPerHour: 3_000,
  timelineRecommendations: 'boost',
};

/** Reads and validates the social settings; throws InputError naming the bad variable. */
export function socialOptionsFromEnv(env: Env): SocialOptions {
  const allowInsecure = parseFlag('RECSVC_ALLOW_INSECURE_INSTANCES', env.RECSVC_ALLOW_INSECURE_INSTANCES);
  const whole = (name: string, fallback: number, min: number): number => parseWholeNumber(name, env[name], fallback, min);
  const ms = (name: string, fallback: number): number =>
    parseDurationSetting(name, env[name], fallback, { unit: 'milliseconds', min: 1, max: MAX_TIMER_MS });
  const seconds = (name: string, fallbackMs: number): number =>
    parseDurationSetting(name, env[name], fallbackMs / 1000, { unit: 'seconds', min: 0, max: MAX_TIMER_SECONDS }) * 1000;
  const options: SocialOptions = {
    defaultInstance: parseDefaultInstance(env.RECSVC_DEFAULT_INSTANCE, allowInsecure),
    allowInsecure,
    connectTimeoutMs: ms('RECSVC_INSTANCE_CONNECT_TIMEOUT_MS', DEFAULT_SOCIAL_OPTIONS.connectTimeoutMs),
    headersTimeoutMs: ms('RECSVC_INSTANCE_HEADERS_TIMEOUT_MS', DEFAULT_SOCIAL_OPTIONS.headersTimeoutMs),
    bodyTimeoutMs: ms('RECSVC_INSTANCE_BODY_TIMEOUT_MS', DEFAULT_SOCIAL_OPTIONS.bodyTimeoutMs),
    requestTimeoutMs: ms('RECSVC_INSTANCE_REQUEST_TIMEOUT_MS', DEFAULT_SOCIAL_OPTIONS.requestTimeoutMs),
    maxResponseBytes: whole('RECSVC_INSTANCE_MAX_RESPONSE_BYTES', DEFAULT_SOCIAL_OPTIONS.maxResponseBytes, 1024),
    tokenCacheTtlMs: seconds('RECSVC_SOCIAL_TOKEN_CACHE_SECONDS', DEFAULT_SOCIAL_OPTIONS.tokenCacheTtlMs),
    tokenCacheCapacity: whole('RECSVC_SOCIAL_TOKEN_CACHE_SIZE', DEFAULT_SOCIAL_OPTIONS.tokenCacheCapacity, 1),
    tokenStaleTtlMs: seconds('RECSVC_SOCIAL_TOKEN_STALE_SECONDS', DEFAULT_SOCIAL_OPTIONS.tokenStaleTtlMs),
    newPostsPerHour: whole('RECSVC_INSTANCE_NEW_POSTS_PER_HOUR', DEFAULT_SOCIAL_OPTIONS.newPostsPerHour, 1),
    timelineRecommendations: parseStyle(env.RECSVC_TIMELINE_RECOMMENDATIONS),
  };
  if (options.connectTimeoutMs > options.requestTimeoutMs || options.headersTimeoutMs > options.requestTimeoutMs) {
    throw new InputError(
      'RECSVC_INSTANCE_CONNECT_TIMEOUT_MS and RECSVC_INSTANCE_HEADERS_TIMEOUT_MS must not exceed RECSVC_INSTANCE_REQUEST_TIMEOUT_MS',
    );
  }
  return options;
}

function parseStyle(text: string | undefined): SocialOptions['timelineRecommendations'] {
  if (text === undefined || text === '') return DEFAULT_SOCIAL_OPTIONS.timelineRecommendations;
  if (text === 'boost' || text === 'inline') return text;
  throw new InputError(`RECSVC_TIMELINE_RECOMMENDATIONS must be boost or inline, got "${text}"`);
}

function parseFlag(name: string, text: string | undefined): boolean {
  if (text === undefined || text === '' || text === '0') return false;
  if (text === '1') return true;
  throw new InputError(`${name} must be 1 or 0, got "${text}"`);
}

function parseDefaultInstance(text: string | undefined, allowInsecure: boolean): string | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  try {
    return parseInstanceAddress(text.trim(), { allowInsecure }).host;
  } catch (error) {
    if (!(error instanceof InstanceAddressError)) throw error;
    throw new InputError(`RECSVC_DEFAULT_INSTANCE must be an instance host name such as mastodon.social: ${error.message}`);
  }
}

function parseWholeNumber(name: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined || text === '') return fallback;
  if (!/^\d{1,15}$/.test(text) || Number(text) < min) throw new InputError(`${name} must be a whole number ≥ ${min}, got "${text}"`);
  return Number(text);
}
