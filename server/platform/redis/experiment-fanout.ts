/**
 * Experiment changes fanned out to every instance by Redis pub/sub. An instance that starts,
 * pauses or stops an experiment, changes its allocations or blocks a variant forgets its
 * cached experiments and enrolments (ExperimentRuntime.invalidate); this tells the other
 * instances to forget theirs too, so a user is not served the default ranking by one
 * instance while another already enrols them (and records no assignment meanwhile).
 *
 * Staleness bound: while Redis is up, pub/sub's delivery time (milliseconds). Without it
 * (Redis down, or a change made by another process such as `recsvc agents run`), each
 * instance re-reads the open experiments at most every 30 s (the runtime's refresh), and
 * forgets everything once more when the subscription is back.
 */
import { randomUUID } from 'node:crypto';
import type { RedisConnection } from './redis-connection.js';

/** What the fan-out uses of the experiments' runtime (server/experiments/experiment-runtime.ts). */
export interface ExperimentFanoutTarget {
  onInvalidate(listener: () => void): void;
  applyRemoteInvalidation(): void;
}

export class ExperimentFanout {
  readonly instanceId: string;
  readonly channel: string;
  /** Changes of this instance published, of other instances applied here, and publishes that failed (tests, metrics). */
  published = 0;
  received = 0;
  publishFailures = 0;
  private target: ExperimentFanoutTarget | undefined;
  private subscribed = false;
  private wasDown = false;

  constructor(
    private readonly publisher: RedisConnection,
    private readonly subscriber: RedisConnection,
    options: { instanceId?: string } = {},
  ) {
    this.instanceId = options.instanceId ?? randomUUID();
    this.channel = `${publisher.keyPrefix}experiment-events`;
    subscriber.client.on('message', (channel: string, text: string) => {
      if (channel === this.channel && text !== this.instanceId && this.target) {
        this.received += 1;
        this.target.applyRemoteInvalidation();
      }
    });
    subscriber.onStateChange((state) => {
      if (state === 'down') this.wasDown = true;
      else if (state === 'ready' && this.wasDown) {
        // Changes published meanwhile are lost: forget everything once.
        this.wasDown = false;
        this.target?.applyRemoteInvalidation();
        if (!this.subscribed) void this.subscribe();
      }
    });
  }

  /** Publishes `target`'s invalidations and applies the other instances' to it; subscribes now. */
  async attach(target: ExperimentFanoutTarget): Promise<void> {
    this.target = target;
    target.onInvalidate(() => {
      // A failed publish (Redis down) is dropped: the others re-read within their refresh.
      this.publisher.client.publish(this.channel, this.instanceId).then(
        () => (this.published += 1),
        () => (this.publishFailures += 1),
      );
    });
    await this.subscribe();
  }

  close(): void {
    this.target = undefined;
  }

  private async subscribe(): Promise<void> {
    try {
      // ioredis subscribes again by itself after a reconnection (autoResubscribe).
      await this.subscriber.client.subscribe(this.channel);
      this.subscribed = true;
    } catch {
      this.subscribed = false;
    }
  }
}
