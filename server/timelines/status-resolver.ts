/**
 * Asks a reader's instance for its own id of a status it has not shown the service yet
 * (Mastodon's `GET /api/v2/search?q=<uri>&resolve=true&type=statuses`, with the reader's
 * token), off the page's path: a page never waits for it. What the instance answers is stored
 * as that instance's copy (PostService.ingestFromInstance: the mapping, and nothing else unless
 * it is the origin), so the next page can inject the status with the reader's ids.
 *
 * Bounded: at most MAX_PENDING lookups queued and RESOLVE_CONCURRENCY running; each
 * (instance, uri) asked at most once per RETRY_AFTER_MS, whatever the answer (a status the
 * instance cannot resolve is not asked for again on every page).
 */
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { StatusInput } from '../../src/schemas/post.schema.js';
import type { InstanceAddress, InstanceClient } from '../platform/social/social.service.js';

export const MAX_PENDING = 500;
export const RESOLVE_CONCURRENCY = 2;
export const RETRY_AFTER_MS = 60 * 60_000;
const REMEMBERED = 50_000;

export interface StatusResolverDeps {
  readonly client: Pick<InstanceClient, 'request'>;
  /** Stores the instance's copy; returns the service's id per input. */
  store(instance: string, statuses: readonly StatusInput[]): Promise<unknown>;
  readonly log?: FastifyBaseLogger;
}

interface Lookup {
  instance: InstanceAddress;
  token: string;
  uri: string;
}

export class StatusResolver {
  private readonly asked = new LRUCache<string, true>({ max: REMEMBERED, ttl: RETRY_AFTER_MS });
  private readonly queue: Lookup[] = [];
  private running = 0;
  private idle: (() => void)[] = [];

  constructor(private readonly deps: StatusResolverDeps) {}

  /** Queues a lookup of `uri` at the reader's instance, unless asked lately or the queue is full. */
  resolve(instance: InstanceAddress, token: string, uri: string): void {
    const key = `${instance.host} ${uri}`;
    if (this.asked.has(key) || this.queue.length >= MAX_PENDING) return;
    this.asked.set(key, true);
    this.queue.push({ instance, token, uri });
    this.pump();
  }

  /** Resolves once nothing is queued or running (tests, shutdown). */
  async settled(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private pump(): void {
    while (this.running < RESOLVE_CONCURRENCY && this.queue.length > 0) {
      const lookup = this.queue.shift()!;
      this.running++;
      void this.lookUp(lookup).finally(() => {
        this.running--;
        this.pump();
        if (this.running === 0 && this.queue.length === 0) for (const done of this.idle.splice(0)) done();
      });
    }
  }

  private async lookUp({ instance, token, uri }: Lookup): Promise<void> {
    try {
      const response = await this.deps.client.request<{ statuses?: unknown }>(instance, {
        path: '/api/v2/search',
        query: { q: uri, resolve: 'true', type: 'statuses', limit: 1 },
        token,
      });
      const found = Array.isArray(response.body?.statuses) ? (response.body.statuses as Record<string, unknown>[]) : [];
      const status = found.find((item) => typeof item === 'object' && item !== null && item.uri === uri);
      if (status !== undefined) await this.deps.store(instance.host, [status as unknown as StatusInput]);
    } catch (error) {
      this.deps.log?.debug({ err: error, instance: instance.host }, 'a recommended status could not be resolved at the reader instance');
    }
  }
}
