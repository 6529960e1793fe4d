/**
 * The one Redis connection of a process (RECSVC_REDIS_URL): shared rate limits, the
 * social-token cache and the ranking state's invalidation fan-out ride on it.
 *
 * A dead or slow Redis must never hang a request: no offline queue (a command while
 * disconnected fails at once), a bounded connect and command timeout, and reconnection
 * in the background with capped backoff. Users of the connection treat a failed command
 * as "Redis is down" and degrade (fail open, bypass the cache); the state changes are
 * logged once each, loudly.
 */
import { Redis } from 'ioredis';

export interface RedisLog {
  info(message: string): void;
  warn(message: string): void;
}

export interface RedisConnectionOptions {
  /** redis://[user:password@]host:port[/db] or rediss://… */
  url: string;
  /** Prefix of every key and channel (several services may share one Redis). */
  keyPrefix?: string;
  connectTimeoutMs?: number;
  /** A command not answered within this fails (the caller degrades). */
  commandTimeoutMs?: number;
  /** First wait before reconnecting (doubled per failed attempt). */
  minBackoffMs?: number;
  /** Longest wait between reconnection attempts. */
  maxBackoffMs?: number;
  log?: RedisLog;
  /** Named in logs and CLIENT LIST (e.g. `recsvc`, `recsvc-subscriber`). */
  name?: string;
}

export const DEFAULT_REDIS_KEY_PREFIX = 'recsvc:';

export type RedisState = 'connecting' | 'ready' | 'down' | 'closed';

export interface RedisHealth {
  status: 'connected' | 'error';
  latency_ms: number;
  message?: string;
}

const silentLog: RedisLog = { info: () => {}, warn: () => {} };

/** `redis://host:port/db` with its password hidden, for logs. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}

export class RedisConnection {
  readonly client: Redis;
  readonly keyPrefix: string;
  private state: RedisState = 'connecting';
  private lastError: string | undefined;
  private readonly listeners: Array<(state: RedisState) => void> = [];
  private readonly log: RedisLog;
  private readonly description: string;

  constructor(readonly options: RedisConnectionOptions) {
    this.log = options.log ?? silentLog;
    this.keyPrefix = options.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX;
    this.description = `${options.name ?? 'redis'} ${redactRedisUrl(options.url)}`;
    const minBackoffMs = options.minBackoffMs ?? 100;
    const maxBackoffMs = Math.max(minBackoffMs, options.maxBackoffMs ?? 5_000);
    this.client = new Redis(options.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: options.connectTimeoutMs ?? 2_000,
      commandTimeout: options.commandTimeoutMs ?? 500,
      connectionName: options.name ?? 'recsvc',
      retryStrategy: (attempt) => Math.min(maxBackoffMs, minBackoffMs * 2 ** Math.min(attempt - 1, 10)),
    });
    this.client.on('ready', () => this.setState('ready'));
    this.client.on('error', (error: Error) => {
      this.lastError = error.message;
      this.setState('down');
    });
    this.client.on('close', () => this.setState('down'));
    this.client.on('end', () => this.setState(this.state === 'closed' ? 'closed' : 'down'));
  }

  /** Connects once; resolves either way (a Redis down at start is retried in the background). */
  async connect(): Promise<void> {
    try {
      await this.client.connect();
    } catch (error) {
      this.lastError = (error as Error).message;
      this.setState('down');
    }
  }

  get status(): RedisState {
    return this.state;
  }

  get isReady(): boolean {
    return this.state === 'ready';
  }

  /** Called on every change of state (ready, down, closed). */
  onStateChange(listener: (state: RedisState) => void): void {
    this.listeners.push(listener);
  }

  /** A second connection to the same server (a subscriber cannot send other commands). */
  duplicate(name: string): RedisConnection {
    return new RedisConnection({ ...this.options, name, log: this.log });
  }

  /** Times one PING round trip (health). */
  async ping(): Promise<RedisHealth> {
    const started = process.hrtime.bigint();
    const latency = (): number => Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
    if (!this.isReady) {
      return { status: 'error', latency_ms: latency(), message: `redis is ${this.state}${this.lastError ? `: ${this.lastError}` : ''}` };
    }
    try {
      await this.client.ping();
      return { status: 'connected', latency_ms: latency() };
    } catch (error) {
      return { status: 'error', latency_ms: latency(), message: (error as Error).message };
    }
  }

  async close(): Promise<void> {
    this.setState('closed');
    this.client.disconnect(false);
    await Promise.resolve();
  }

  private setState(next: RedisState): void {
    if (this.state === 'closed' || next === this.state) return;
    const previous = this.state;
    this.state = next;
    if (next === 'ready') this.log.info(`${this.description}: connected${previous === 'down' ? ' again' : ''}`);
    else if (next === 'down') {
      this.log.warn(
        `${this.description}: DOWN (${this.lastError ?? 'connection closed'}); rate limits fail open and caches are bypassed until it is back`,
      );
    }
    for (const listener of this.listeners) listener(next);
  }
}
