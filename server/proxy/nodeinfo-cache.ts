/**
 * Drop-in mode's `/.well-known/nodeinfo`: the discovery document of the instance a request
 * names. Anyone may ask (it is public on Mastodon), so it is kept cheap to serve and useless
 * as a relay: the route is under the anonymous rate limit (src/rate-limit/policy.ts), the
 * instance is asked without the caller's credentials or headers, and its answer is kept per
 * instance for `ttlMs` in a bounded LRU (`capacity` instances); requests for an instance
 * already being asked share that one call. Only a definite answer is kept (200 of at most
 * `maxBodyBytes`, 404, 410); a failure is passed on and asked again next time.
 */
import { LruCache } from '../../src/lru-cache.js';
import type { InstanceAddress } from '../platform/social/social.service.js';
import type { ProxyResponse, ProxyService } from './proxy.service.js';

export const NODEINFO_PATH = '/.well-known/nodeinfo';

export interface NodeinfoCacheOptions {
  readonly ttlMs?: number;
  readonly capacity?: number;
  readonly maxBodyBytes?: number;
  readonly now?: () => number;
}

export const DEFAULT_NODEINFO_CACHE_OPTIONS = {
  ttlMs: 10 * 60_000,
  capacity: 1_000,
  maxBodyBytes: 64 * 1024,
} as const;

/** Statuses that are the instance's answer rather than a failure of the moment. */
const KEPT_STATUSES = new Set([200, 404, 410]);
/** The only response header passed back: the rest (rate limits, validators) belongs to one exchange. */
const KEPT_HEADERS = ['content-type'] as const;

interface Entry {
  readonly response: ProxyResponse;
  readonly expiresAtMs: number;
}

/** The nodeinfo documents of instances, asked once per TTL each (see the file's comment). */
export class NodeinfoCache {
  private readonly entries: LruCache<string, Entry>;
  private readonly inFlight = new Map<string, Promise<ProxyResponse>>();
  private readonly ttlMs: number;
  private readonly maxBodyBytes: number;
  private readonly now: () => number;

  constructor(
    private readonly proxy: ProxyService,
    options: NodeinfoCacheOptions = {},
  ) {
    this.entries = new LruCache(options.capacity ?? DEFAULT_NODEINFO_CACHE_OPTIONS.capacity);
    this.ttlMs = options.ttlMs ?? DEFAULT_NODEINFO_CACHE_OPTIONS.ttlMs;
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_NODEINFO_CACHE_OPTIONS.maxBodyBytes;
    this.now = options.now ?? Date.now;
  }

  /** Instances whose answer is kept (the service_cache_entries gauge; each at most `maxBodyBytes`). */
  get size(): number {
    return this.entries.size;
  }

  /** The instance's nodeinfo discovery answer, from the cache or asked now. */
  async get(instance: InstanceAddress): Promise<ProxyResponse> {
    const cached = this.entries.get(instance.host);
    if (cached && cached.expiresAtMs > this.now()) return cached.response;
    let pending = this.inFlight.get(instance.host);
    if (!pending) {
      pending = this.ask(instance).finally(() => this.inFlight.delete(instance.host));
      this.inFlight.set(instance.host, pending);
    }
    return pending;
  }

  private async ask(instance: InstanceAddress): Promise<ProxyResponse> {
    const answer = await this.proxy.forward(instance, {
      method: 'GET',
      path: NODEINFO_PATH,
      query: '',
      headers: { accept: 'application/json' },
      body: undefined,
      token: undefined,
    });
    const headers: Record<string, string | string[]> = {};
    for (const name of KEPT_HEADERS) {
      const value = answer.headers[name];
      if (value !== undefined) headers[name] = value;
    }
    const response: ProxyResponse = { status: answer.status, headers, body: answer.body };
    if (KEPT_STATUSES.has(response.status) && response.body.length <= this.maxBodyBytes) {
      this.entries.set(instance.host, { response, expiresAtMs: this.now() + this.ttlMs });
    }
    return response;
  }
}
