/**
 * The server's settings, from flags first, then RECSVC_* environment variables,
 * then defaults. Every value is validated here so `serve` fails fast and clearly.
 */
import { DEFAULT_RATE_LIMIT_POLICY, scalePolicy, type RateLimitPolicy } from '../src/rate-limit/policy.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface ServerConfig {
  port: number;
  host: string;
  dbPath: string;
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
  /** Base of absolute URLs the service writes (Link headers, OAuth redirects); never the client's Host. */
  publicUrl: string | undefined;
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
  demo?: boolean;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

/** Builds and validates the configuration; throws ConfigError naming the bad setting. */
export function loadServerConfig(flags: ServeFlags, env: Env = process.env): ServerConfig {
  const port = parsePort(flags.port ?? env.RECSVC_PORT ?? '8080');
  const host = flags.host ?? env.RECSVC_HOST ?? '127.0.0.1';
  if (host.trim() === '') throw new ConfigError('--host must not be empty');
  const dbPath = flags.db ?? env.RECSVC_DB ?? './recsvc.db';
  if (dbPath.trim() === '') throw new ConfigError('--db must not be empty');
  const logLevel = parseLogLevel(flags.logLevel ?? env.RECSVC_LOG_LEVEL ?? 'info');
  const rateLimit = parseRateLimit(flags.rateLimit ?? env.RECSVC_RATE_LIMIT ?? 'on', flags.rateLimitScale ?? env.RECSVC_RATE_LIMIT_SCALE);
  const trustProxy = parseTrustProxy(flags.trustProxy ?? env.RECSVC_TRUST_PROXY);
  const agentIntervalSeconds = parsePositive('RECSVC_AGENT_INTERVAL', env.RECSVC_AGENT_INTERVAL ?? '60');
  const publicUrl = parsePublicUrl(flags.publicUrl ?? env.RECSVC_PUBLIC_URL);
  return {
    port,
    host,
    dbPath,
    logLevel,
    rateLimit,
    trustProxy,
    demo: flags.demo ?? env.RECSVC_DEMO === '1',
    bodyLimit: 1_048_576,
    agentIntervalSeconds,
    publicUrl,
  };
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
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
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
