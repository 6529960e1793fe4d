/**
 * The server's settings, from flags first, then RECSVC_* environment variables,
 * then defaults. Every value is validated here so `serve` fails fast and clearly.
 */
import { readPrivacySettings, type PrivacySettings } from './privacy/privacy.settings.js';
import { readFaspSettings, type FaspSettings } from './fasp/fasp.settings.js';
import { getHeapStatistics } from 'node:v8';
import { InputError } from '../src/errors.js';
import { DEFAULT_RATE_LIMIT_POLICY, scalePolicy, type RateLimitPolicy } from '../src/rate-limit/policy.js';
import { DEFAULT_DATABASE_POOL_SIZE, DEFAULT_SQLITE_MMAP_BYTES } from './platform/db/connection.js';
import { readOAuthSettings } from './oauth/oauth.settings.js';
import { readRagSettings, type RagSettings } from './rag/rag.settings.js';
import { readRedisSettings, type RedisSettings } from './platform/redis/redis-settings.js';
import {
  AGENT_INTERVAL_MAX_SECONDS,
  AGENT_INTERVAL_MIN_SECONDS,
  MAX_TIMER_MS,
  parseDurationSetting,
  type DurationBounds,
} from './platform/duration-setting.js';
import { socialOptionsFromEnv, type SocialOptions } from './platform/social/social.service.js';
import { readTlsFiles, type TlsFiles } from './tls-setting.js';
import { DEFAULT_RANKING_STATE_OPTIONS } from './ranking-state/ranking-state.service.js';
import { budgetShareBytes, DEFAULT_MEMORY_BUDGET_MB, type BudgetedCache } from './ranking-state/memory-budget.js';
import { sourceSharesFromEnv, type CoEngagementOptions, type SourceShares } from '../src/ranking/index.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface ServerConfig {
  port: number;
  host: string;
  /** An SQLite file, or a postgres:// URL for PostgreSQL (--db, RECSVC_DATABASE_URL, RECSVC_DB). */
  dbPath: string;
  /** PostgreSQL: most connections this process's pool opens (RECSVC_DATABASE_POOL_SIZE). */
  databasePoolSize: number;
  /** Default tracking level and pseudonym key (server/privacy/privacy.settings.ts). */
  privacy: PrivacySettings;
  /** The FASP provider (--fasp, RECSVC_FASP=1; server/fasp/fasp.settings.ts); undefined when off. */
  fasp: FaspSettings | undefined;
  /** RECSVC_FASP_KEY, when set (server/fasp/fasp-keys.ts). */
  faspKey: string | undefined;
  /** Bytes of the database file read through a memory map (RECSVC_SQLITE_MMAP_MB); 0 reads with read() calls. */
  sqliteMmapBytes: number;
  /**
   * How far V8 lets the JavaScript heap grow past what the last full collection kept, in
   * percent (RECSVC_HEAP_GROWTH_PERCENT; 0: V8's own choice, up to about 4x).
   */
  heapGrowthPercent: number;
  logLevel: LogLevel;
  /** `null` when rate limiting is switched off. */
  rateLimit: RateLimitPolicy | null;
  /** Trust X-Forwarded-For from these proxies (fastify `trustProxy`); false by default. */
  trustProxy: boolean | string;
  demo: boolean;
  /** Largest accepted request body, bytes. */
  bodyLimit: number;
  /** Seconds between background agent runs (scaled down in tests). */
  agentIntervalSeconds: number;
  /** Its own TLS listener (--tls-cert/--tls-key, RECSVC_TLS_CERT/RECSVC_TLS_KEY): server/tls-setting.ts; undefined: plain HTTP. */
  tls: TlsFiles | undefined;
  /** Base of absolute URLs the service writes (Link headers, OAuth redirects); never the client's Host. */
  publicUrl: string | undefined;
  /** Timeouts and connection limits of the HTTP server. */
  http: HttpLimits;
  /** When to answer 503 instead of taking more work; `null` switches shedding off. */
  loadShedding: LoadSheddingLimits | null;
  /** Origins allowed to call the API from a browser: `*` (any) or an exact list. */
  corsOrigins: '*' | string[];
  /** Bounds of the in-memory ranking caches (server/ranking-state). */
  caches: CacheLimits;
  /** Largest share of the candidate pool and of a trending page per source instance and author (RECSVC_INSTANCE_SHARE, RECSVC_AUTHOR_SHARE). */
  sourceShares: SourceShares;
  /** Social instances: default instance, insecure mode for tests, timeouts, token cache (server/platform/social/social-options.ts). */
  social: SocialOptions;
  /** Lifetimes of the tokens the service's OAuth server issues (server/oauth/oauth.settings.ts). */
  oauth: ReturnType<typeof readOAuthSettings>;
  /** RAG: indexed posts bound and the optional language model (server/rag/rag.settings.ts). */
  rag: RagSettings;
  /** Redis (RECSVC_REDIS_URL, RECSVC_REDIS_PREFIX) and cluster mode (--cluster, RECSVC_CLUSTER=1): server/platform/redis/redis-settings.ts. */
  redis: RedisSettings;
}

/** Entries (or characters) the ranking state may hold in memory. */
export interface CacheLimits {
  profileCapacity: number;
  profileMaxBytes: number;
  resultCapacity: number;
  resultMaxBytes: number;
  /** How long a user's ranked list is served again while nothing of theirs changed. */
  resultTtlMs: number;
  statusCapacity: number;
  jsonMaxChars: number;
  /** The co-engagement state's bounds and pairing window (docs/ranking.md). */
  coEngagement: CoEngagementOptions;
  /** Stored interactions the co-engagement state is rebuilt from (the newest). */
  coEngagementHistory: number;
  /** Collaborative candidates held beside the candidate pool. */
  collaborativeCandidates: number;
  /** Bytes the writers' memory of users' newest interactions may hold (a share of RECSVC_MEMORY_MB). */
  recentInteractionsMaxBytes: number;
}

const MB = 1024 * 1024;

/** The ranking state's own defaults (one definition, there). */
export const DEFAULT_CACHE_LIMITS: CacheLimits = {
  profileCapacity: DEFAULT_RANKING_STATE_OPTIONS.profileCapacity,
  profileMaxBytes: DEFAULT_RANKING_STATE_OPTIONS.profileMaxBytes,
  resultCapacity: DEFAULT_RANKING_STATE_OPTIONS.resultCapacity,
  resultMaxBytes: DEFAULT_RANKING_STATE_OPTIONS.resultMaxBytes,
  resultTtlMs: DEFAULT_RANKING_STATE_OPTIONS.resultTtlMs,
  statusCapacity: DEFAULT_RANKING_STATE_OPTIONS.statusCapacity,
  jsonMaxChars: DEFAULT_RANKING_STATE_OPTIONS.jsonMaxChars,
  coEngagement: DEFAULT_RANKING_STATE_OPTIONS.coEngagement,
  coEngagementHistory: DEFAULT_RANKING_STATE_OPTIONS.coEngagementHistory,
  collaborativeCandidates: DEFAULT_RANKING_STATE_OPTIONS.index.maxCollaborative,
  recentInteractionsMaxBytes: DEFAULT_RANKING_STATE_OPTIONS.recentInteractionsMaxBytes,
};

/** The smallest RECSVC_MEMORY_MB: 9 MB gives every cache at least 1 MB. */
const MIN_MEMORY_BUDGET_MB = 9;

/** The HTTP server's protections (README, Configuration). */
export interface HttpLimits {
  /** Whole request (headers and body) must arrive within this; else 408 and the connection closes. */
  requestTimeoutMs: number;
  /** Request headers must arrive within this. */
  headersTimeoutMs: number;
  /** A socket with no traffic in either direction for this long is closed. */
  connectionTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Connections beyond this are refused at accept (keep it below `ulimit -n`). */
  maxConnections: number;
  /** Connections one remote address may hold; its oldest idle one is recycled beyond (server/platform/http/client-connection-cap.ts). */
  maxConnectionsPerClient: number;
  /** Request line plus headers, bytes; more is 431. */
  maxHeaderBytes: number;
}

/** Thresholds of @fastify/under-pressure; 0 switches a check off. */
export interface LoadSheddingLimits {
  maxEventLoopDelayMs: number;
  maxHeapUsedBytes: number;
  maxRssBytes: number;
  /** Seconds a shed caller is told to wait (Retry-After). */
  retryAfterSeconds: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  connectionTimeoutMs: 30_000,
  keepAliveTimeoutMs: 10_000,
  maxConnections: 8_192,
  maxConnectionsPerClient: 1_024,
  maxHeaderBytes: 16_384,
};

/** One client may hold an eighth of the server's connections unless RECSVC_MAX_CONNECTIONS_PER_CLIENT says otherwise. */
const PER_CLIENT_SHARE = 8;

/** Shed at 1 s of event-loop delay or when the heap holds 90% of V8's limit. */
export function defaultLoadShedding(heapLimitBytes: number): LoadSheddingLimits {
  return { maxEventLoopDelayMs: 1_000, maxHeapUsedBytes: Math.floor(heapLimitBytes * 0.9), maxRssBytes: 0, retryAfterSeconds: 10 };
}

export interface ServeFlags {
  port?: string;
  host?: string;
  db?: string;
  logLevel?: string;
  rateLimit?: string;
  rateLimitScale?: string;
  trustProxy?: string;
  publicUrl?: string;
  corsOrigins?: string;
  /** PEM certificate (chain) and key files of an HTTPS listener. */
  tlsCert?: string;
  tlsKey?: string;
  demo?: boolean;
  /** Several instances serve one database: refused without RECSVC_REDIS_URL. */
  cluster?: boolean;
  /** Serve as a FASP provider (server/fasp). */
  fasp?: boolean;
}

/** A bad setting: `serve` exits 2 with its message (an InputError for the CLI's error funnel). */
export class ConfigError extends InputError {}

type Env = Record<string, string | undefined>;

/**
 * The served process's heap may grow to 1.5x what its last full collection kept: a heap that
 * holds ~130 MB (caches and pool) then peaks near 200 MB instead of the ~460 MB V8 allows
 * on its own when collections are cheap (measured on the 100k-user data set), at about 1%
 * more time in the collector.
 */
export const DEFAULT_HEAP_GROWTH_PERCENT = 50;

/** Builds and validates the configuration; throws ConfigError naming the bad setting. */
export function loadServerConfig(flags: ServeFlags, env: Env = process.env): ServerConfig {
  const port = parsePort(flags.port ?? env.RECSVC_PORT ?? '8080');
  const host = flags.host ?? env.RECSVC_HOST ?? '127.0.0.1';
  if (host.trim() === '') throw new ConfigError('--host must not be empty');
  const dbPath = flags.db ?? env.RECSVC_DATABASE_URL ?? env.RECSVC_DB ?? './recsvc.db';
  if (dbPath.trim() === '') throw new ConfigError('--db must not be empty');
  const databasePoolSize = parseWholeNumber('RECSVC_DATABASE_POOL_SIZE', env.RECSVC_DATABASE_POOL_SIZE, DEFAULT_DATABASE_POOL_SIZE, 1);
  const sqliteMmapBytes = parseWholeNumber('RECSVC_SQLITE_MMAP_MB', env.RECSVC_SQLITE_MMAP_MB, DEFAULT_SQLITE_MMAP_BYTES / MB, 0) * MB;
  const heapGrowthPercent = parseWholeNumber('RECSVC_HEAP_GROWTH_PERCENT', env.RECSVC_HEAP_GROWTH_PERCENT, DEFAULT_HEAP_GROWTH_PERCENT, 0);
  const logLevel = parseLogLevel(flags.logLevel ?? env.RECSVC_LOG_LEVEL ?? 'info');
  const rateLimit = parseRateLimit(flags.rateLimit ?? env.RECSVC_RATE_LIMIT ?? 'on', flags.rateLimitScale ?? env.RECSVC_RATE_LIMIT_SCALE);
  const trustProxy = parseTrustProxy(flags.trustProxy ?? env.RECSVC_TRUST_PROXY);
  const agentIntervalSeconds = parseDurationSetting('RECSVC_AGENT_INTERVAL', env.RECSVC_AGENT_INTERVAL, 60, {
    unit: 'seconds',
    min: AGENT_INTERVAL_MIN_SECONDS,
    max: AGENT_INTERVAL_MAX_SECONDS,
    fractional: true,
  });
  const publicUrl = parsePublicUrl(flags.publicUrl ?? env.RECSVC_PUBLIC_URL);
  const tls = readTlsFiles(flags.tlsCert ?? env.RECSVC_TLS_CERT, flags.tlsKey ?? env.RECSVC_TLS_KEY);
  const http = parseHttpLimits(env);
  const loadShedding = parseLoadShedding(env);
  const corsOrigins = parseCorsOrigins(flags.corsOrigins ?? env.RECSVC_CORS_ORIGINS ?? '*');
  const caches = parseCacheLimits(env);
  const sourceShares = sourceSharesFromEnv(env);
  const social = socialOptionsFromEnv(env);
  const oauth = readOAuthSettings(env);
  const rag = readRagSettings(env);
  const redis = readRedisSettings(env, { cluster: flags.cluster === true });
  const privacy = readPrivacySettings(env);
  return {
    privacy,
    fasp: readFaspSettings(env, flags.fasp),
    faspKey: env.RECSVC_FASP_KEY,
    social,
    oauth,
    rag,
    redis,
    port,
    host,
    dbPath,
    databasePoolSize,
    sqliteMmapBytes,
    heapGrowthPercent,
    logLevel,
    rateLimit,
    trustProxy,
    demo: flags.demo ?? env.RECSVC_DEMO === '1',
    bodyLimit: 1_048_576,
    agentIntervalSeconds,
    publicUrl,
    tls,
    http,
    loadShedding,
    corsOrigins,
    caches,
    sourceShares,
  };
}

function parseCacheLimits(env: Env): CacheLimits {
  const limit = (name: string, fallback: number): number => parseWholeNumber(name, env[name], fallback, 1);
  const megabytes = (name: string, fallback: number): number => parseWholeNumber(name, env[name], fallback / MB, 1) * MB;
  // One budget divided by fixed shares; a cache's own variable wins over its share.
  const budgetMb = parseWholeNumber('RECSVC_MEMORY_MB', env.RECSVC_MEMORY_MB, DEFAULT_MEMORY_BUDGET_MB, MIN_MEMORY_BUDGET_MB);
  const share = (cache: BudgetedCache): number => budgetShareBytes(budgetMb, cache);
  return {
    profileCapacity: limit('RECSVC_PROFILE_CACHE', DEFAULT_CACHE_LIMITS.profileCapacity),
    profileMaxBytes: megabytes('RECSVC_PROFILE_CACHE_MB', share('profiles')),
    resultCapacity: limit('RECSVC_RESULT_CACHE', DEFAULT_CACHE_LIMITS.resultCapacity),
    resultMaxBytes: megabytes('RECSVC_RESULT_CACHE_MB', share('results')),
    resultTtlMs: limit('RECSVC_RESULT_TTL_SECONDS', DEFAULT_CACHE_LIMITS.resultTtlMs / 1000) * 1000,
    statusCapacity: limit('RECSVC_STATUS_CACHE', DEFAULT_CACHE_LIMITS.statusCapacity),
    jsonMaxChars: limit('RECSVC_STATUS_JSON_MAX_CHARS', share('statusJson')),
    recentInteractionsMaxBytes: share('recentInteractions'),
    coEngagement: {
      maxPosts: limit('RECSVC_COENGAGEMENT_POSTS', DEFAULT_CACHE_LIMITS.coEngagement.maxPosts),
      // At most 255 (a byte per post counts them).
      neighboursPerPost: Math.min(255, limit('RECSVC_COENGAGEMENT_NEIGHBOURS', DEFAULT_CACHE_LIMITS.coEngagement.neighboursPerPost)),
      maxBytes: megabytes('RECSVC_COENGAGEMENT_MB', share('coEngagement')),
      // The most similar neighbours a post serves to the collaborative feature (at most 255).
      servedPerPost: Math.min(255, limit('RECSVC_COENGAGEMENT_SERVED', DEFAULT_CACHE_LIMITS.coEngagement.servedPerPost)),
      // 0 turns the pairing off: no read per interaction, nothing co-engaged.
      window: parseWholeNumber('RECSVC_COENGAGEMENT_WINDOW', env.RECSVC_COENGAGEMENT_WINDOW, DEFAULT_CACHE_LIMITS.coEngagement.window, 0),
    },
    coEngagementHistory: parseWholeNumber(
      'RECSVC_COENGAGEMENT_HISTORY',
      env.RECSVC_COENGAGEMENT_HISTORY,
      DEFAULT_CACHE_LIMITS.coEngagementHistory,
      0,
    ),
    collaborativeCandidates: parseWholeNumber(
      'RECSVC_COLLABORATIVE_CANDIDATES',
      env.RECSVC_COLLABORATIVE_CANDIDATES,
      DEFAULT_CACHE_LIMITS.collaborativeCandidates,
      0,
    ),
  };
}

/** A timeout in milliseconds: at least 1, at most what a Node timer holds. */
const TIMEOUT_MS: DurationBounds = { unit: 'milliseconds', min: 1, max: MAX_TIMER_MS };

function parseHttpLimits(env: Env): HttpLimits {
  const limit = (name: string, fallback: number): number => parseWholeNumber(name, env[name], fallback, 1);
  const timeout = (name: string, fallback: number): number => parseDurationSetting(name, env[name], fallback, TIMEOUT_MS);
  const limits: HttpLimits = {
    requestTimeoutMs: timeout('RECSVC_REQUEST_TIMEOUT_MS', DEFAULT_HTTP_LIMITS.requestTimeoutMs),
    headersTimeoutMs: timeout('RECSVC_HEADERS_TIMEOUT_MS', DEFAULT_HTTP_LIMITS.headersTimeoutMs),
    connectionTimeoutMs: timeout('RECSVC_CONNECTION_TIMEOUT_MS', DEFAULT_HTTP_LIMITS.connectionTimeoutMs),
    keepAliveTimeoutMs: timeout('RECSVC_KEEP_ALIVE_TIMEOUT_MS', DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs),
    maxConnections: limit('RECSVC_MAX_CONNECTIONS', DEFAULT_HTTP_LIMITS.maxConnections),
    maxConnectionsPerClient: 0,
    maxHeaderBytes: parseWholeNumber('RECSVC_MAX_HEADER_BYTES', env.RECSVC_MAX_HEADER_BYTES, DEFAULT_HTTP_LIMITS.maxHeaderBytes, 1024),
  };
  const share = Math.max(1, Math.floor(limits.maxConnections / PER_CLIENT_SHARE));
  limits.maxConnectionsPerClient = limit('RECSVC_MAX_CONNECTIONS_PER_CLIENT', share);
  if (limits.maxConnectionsPerClient > limits.maxConnections) {
    throw new ConfigError('RECSVC_MAX_CONNECTIONS_PER_CLIENT must not exceed RECSVC_MAX_CONNECTIONS');
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError('RECSVC_HEADERS_TIMEOUT_MS must not exceed RECSVC_REQUEST_TIMEOUT_MS');
  }
  return limits;
}

function parseLoadShedding(env: Env): LoadSheddingLimits | null {
  if (env.RECSVC_LOAD_SHEDDING === 'off') return null;
  if (env.RECSVC_LOAD_SHEDDING !== undefined && env.RECSVC_LOAD_SHEDDING !== 'on') {
    throw new ConfigError(`RECSVC_LOAD_SHEDDING must be "on" or "off", got "${env.RECSVC_LOAD_SHEDDING}"`);
  }
  const defaults = defaultLoadShedding(heapSizeLimit());
  const mib = 1024 * 1024;
  return {
    maxEventLoopDelayMs: parseDurationSetting(
      'RECSVC_MAX_EVENT_LOOP_DELAY_MS',
      env.RECSVC_MAX_EVENT_LOOP_DELAY_MS,
      defaults.maxEventLoopDelayMs,
      {
        ...TIMEOUT_MS,
        min: 0,
      },
    ),
    maxHeapUsedBytes: parseWholeNumber('RECSVC_MAX_HEAP_MB', env.RECSVC_MAX_HEAP_MB, Math.round(defaults.maxHeapUsedBytes / mib), 0) * mib,
    maxRssBytes: parseWholeNumber('RECSVC_MAX_RSS_MB', env.RECSVC_MAX_RSS_MB, 0, 0) * mib,
    retryAfterSeconds: defaults.retryAfterSeconds,
  };
}

function parseCorsOrigins(text: string): '*' | string[] {
  if (text.trim() === '*') return '*';
  const origins = text
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  for (const origin of origins) {
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      url = undefined;
    }
    if (!url || url.origin !== origin) {
      throw new ConfigError(
        `--cors-origins/RECSVC_CORS_ORIGINS must be * or a comma-separated list of origins such as https://elk.zone, got "${origin}"`,
      );
    }
  }
  if (origins.length === 0) throw new ConfigError('--cors-origins/RECSVC_CORS_ORIGINS must not be empty (use * for any origin)');
  return origins;
}

/** A whole number written in plain decimal digits, at least `min`. */
function parseWholeNumber(name: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined || text === '') return fallback;
  if (!/^\d{1,15}$/.test(text) || Number(text) < min) throw new ConfigError(`${name} must be a whole number ≥ ${min}, got "${text}"`);
  return Number(text);
}

/** An absolute http(s) URL with no query or fragment, kept without its trailing slash. */
function parsePublicUrl(text: string | undefined): string | undefined {
  if (text === undefined || text === '') return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`--public-url/RECSVC_PUBLIC_URL must be an absolute URL such as https://recs.example.org, got "${text}"`);
  }
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== ''
  ) {
    throw new ConfigError(`--public-url/RECSVC_PUBLIC_URL must be an http(s) URL without credentials, query or fragment, got "${text}"`);
  }
  return url.href.replace(/\/+$/, '');
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) {
    throw new ConfigError(`--port/RECSVC_PORT must be an integer from 0 to 65535, got "${text}"`);
  }
  return port;
}

function parseLogLevel(text: string): LogLevel {
  if (!(LOG_LEVELS as readonly string[]).includes(text)) {
    throw new ConfigError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got "${text}"`);
  }
  return text as LogLevel;
}

function parseRateLimit(mode: string, scale: string | undefined): RateLimitPolicy | null {
  if (mode === 'off') return null;
  if (mode !== 'on') throw new ConfigError(`--rate-limit/RECSVC_RATE_LIMIT must be "on" or "off", got "${mode}"`);
  if (scale === undefined) return DEFAULT_RATE_LIMIT_POLICY;
  return scalePolicy(DEFAULT_RATE_LIMIT_POLICY, parsePositive('RECSVC_RATE_LIMIT_SCALE', scale));
}

function parseTrustProxy(text: string | undefined): boolean | string {
  if (text === undefined || text === '' || text === 'false') return false;
  if (text === 'true') return true;
  return text;
}

function parsePositive(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new ConfigError(`${name} must be a positive number, got "${text}"`);
  return value;
}

function heapSizeLimit(): number {
  return getHeapStatistics().heap_size_limit;
}
