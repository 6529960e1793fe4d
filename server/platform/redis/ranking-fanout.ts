/**
 * The ranking state's invalidation events fanned out to every instance by Redis pub/sub.
 * Each instance publishes its own events (post stored or deleted, counts changed, a user's
 * signals changed, a user erased) on one channel, tagged with its instance id, and applies
 * the others' to its memory (RankingState.applyRemoteEvent, which never re-publishes).
 *
 * Staleness bound: while Redis is up, another instance's change reaches this one's memory
 * within the pub/sub delivery time (milliseconds). Pub/sub does not replay what was sent
 * while a subscriber was away, so when the subscription drops this instance drops every
 * cache at once, again every `outageFlushMs` (default 30 s, the result lists' lifetime)
 * while Redis is down, and once more when it is back: nothing older than that bound is
 * served during an outage. A publish that fails (Redis down) is dropped: the receivers flush
 * on their side for the same outage.
 */
import { randomUUID } from 'node:crypto';
import type { RedisConnection, RedisLog } from './redis-connection.js';

/**
 * What the fan-out uses of the ranking state (server/ranking-state): its events, as plain JSON
 * in the form they travel in (the state owns their vocabulary; the fan-out only carries them).
 */
export interface FanoutTarget<E = unknown> {
  onLocalEvent(listener: (message: E) => void): void;
  applyRemoteEvent(message: E): void;
  /** Drops every cache and reads the pool again from the database. */
  reload(): Promise<void>;
}

export interface RankingFanoutOptions {
  /** Names this process in messages (its own are ignored); random by default. */
  instanceId?: string;
  /** How often every cache is dropped while the subscription is down. */
  outageFlushMs?: number;
  log?: RedisLog;
}

interface Envelope {
  from: string;
  event: unknown;
}

export const DEFAULT_OUTAGE_FLUSH_MS = 30_000;

export class RankingFanout {
  readonly instanceId: string;
  readonly channel: string;
  /** Events of this instance published, of other instances applied here, and publishes that failed (tests, metrics). */
  published = 0;
  received = 0;
  publishFailures = 0;
  private target: FanoutTarget | undefined;
  private outageTimer: NodeJS.Timeout | undefined;
  private wasDown = false;
  private readonly log: RedisLog;
  private readonly outageFlushMs: number;

  constructor(
    private readonly publisher: RedisConnection,
    private readonly subscriber: RedisConnection,
    options: RankingFanoutOptions = {},
  ) {
    this.instanceId = options.instanceId ?? randomUUID();
    this.channel = `${publisher.keyPrefix}ranking-events`;
    this.log = options.log ?? publisher.options.log ?? { info: () => {}, warn: () => {} };
    this.outageFlushMs = options.outageFlushMs ?? DEFAULT_OUTAGE_FLUSH_MS;
    subscriber.client.on('message', (channel: string, text: string) => {
      if (channel === this.channel) this.receive(text);
    });
    subscriber.onStateChange((state) => {
      if (state === 'down') this.subscriptionLost();
      else if (state === 'ready') this.subscriptionBack();
    });
  }

  /** Publishes `state`'s events and applies the other instances' to it; subscribes now. */
  async attach<E>(state: FanoutTarget<E>): Promise<void> {
    this.target = state;
    state.onLocalEvent((event) => this.publish(event));
    await this.subscribe();
  }

  async close(): Promise<void> {
    clearInterval(this.outageTimer);
    this.outageTimer = undefined;
    this.target = undefined;
  }

  private publish(event: unknown): void {
    const envelope: Envelope = { from: this.instanceId, event };
    this.publisher.client.publish(this.channel, JSON.stringify(envelope)).then(
      () => {
        this.published += 1;
      },
      () => {
        this.publishFailures += 1;
      },
    );
  }

  private receive(text: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(text) as Envelope;
    } catch {
      return;
    }
    if (envelope.from === this.instanceId || !this.target) return;
    try {
      this.target.applyRemoteEvent(envelope.event);
      this.received += 1;
    } catch (error) {
      this.log.warn(`ranking event from instance ${envelope.from} not applied (${(error as Error).message}); dropping every cache`);
      this.flush();
    }
  }

  private async subscribe(): Promise<void> {
    try {
      // ioredis subscribes again by itself after a reconnection (autoResubscribe).
      await this.subscriber.client.subscribe(this.channel);
    } catch {
      this.subscriptionLost();
    }
  }

  private subscriptionLost(): void {
    if (this.outageTimer !== undefined || !this.target) return;
    this.wasDown = true;
    this.log.warn(
      `ranking invalidations from other instances are NOT received (Redis down): dropping every cache now and every ${this.outageFlushMs / 1000} s until Redis is back`,
    );
    this.flush();
    this.outageTimer = setInterval(() => this.flush(), this.outageFlushMs);
    this.outageTimer.unref();
  }

  private subscriptionBack(): void {
    clearInterval(this.outageTimer);
    this.outageTimer = undefined;
    if (!this.wasDown || !this.target) return;
    this.wasDown = false;
    this.log.info('ranking invalidations received again; dropping every cache once (events sent meanwhile are lost)');
    this.flush();
    if (this.subscriber.client.status === 'ready' && this.subscriber.client.mode !== 'subscriber') void this.subscribe();
  }

  private flush(): void {
    this.target?.reload().catch((error: unknown) => this.log.warn(`ranking caches could not be reloaded: ${(error as Error).message}`));
  }
}
