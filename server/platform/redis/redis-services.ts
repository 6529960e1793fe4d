/**
 * Everything Redis gives an app (RECSVC_REDIS_URL): shared rate-limit counters, the shared
 * social-token cache, the ranking state's and the experiments' invalidation fan-outs, and the
 * health check. One command connection and one subscriber connection per process. Built before
 * the app; `attachRankingState` and `attachExperiments` once those exist; `close` on shutdown.
 */
import type { ComponentHealth } from '../health/health.service.js';
import type { FanoutReading } from '../metrics/service-metrics.js';
import { RedisRateLimitStore } from './redis-rate-limit.store.js';
import { ExperimentFanout, type ExperimentFanoutTarget } from './experiment-fanout.js';
import { RankingFanout, type FanoutTarget, type RankingFanoutOptions } from './ranking-fanout.js';
import { RedisConnection, type RedisConnectionOptions, type RedisLog } from './redis-connection.js';
import { RedisTokenCache } from './redis-token-cache.js';

export interface RedisServices {
  readonly connection: RedisConnection;
  /** The pub/sub connection of the fan-out. */
  readonly subscriber: RedisConnection;
  readonly rateLimitStore: RedisRateLimitStore;
  readonly tokenCache: RedisTokenCache;
  readonly fanout: RankingFanout;
  readonly experimentFanout: ExperimentFanout;
  /** One PING (health's `redis` component); says when rate limits fail open. */
  health(): Promise<ComponentHealth>;
  /** Each fan-out channel's message counts since the start (service_fanout_messages_total). */
  fanoutCounts(): FanoutReading[];
  attachRankingState(state: FanoutTarget): Promise<void>;
  /** Experiment lifecycle changes and blocks made here reach the other instances' runtimes, and theirs this one's. */
  attachExperiments(runtime: ExperimentFanoutTarget): Promise<void>;
  close(): Promise<void>;
}

export interface RedisServicesOptions extends Omit<RedisConnectionOptions, 'name' | 'log'> {
  log?: RedisLog;
  fanout?: Omit<RankingFanoutOptions, 'log'>;
}

/** Connects (a Redis down at start is logged and retried in the background; nothing waits for it). */
export async function createRedisServices(options: RedisServicesOptions): Promise<RedisServices> {
  const { fanout: fanoutOptions, ...connectionOptions } = options;
  const connection = new RedisConnection({ ...connectionOptions, name: 'recsvc' });
  const subscriber = connection.duplicate('recsvc-subscriber');
  await Promise.all([connection.connect(), subscriber.connect()]);
  const rateLimitStore = new RedisRateLimitStore(connection);
  const fanout = new RankingFanout(connection, subscriber, { ...fanoutOptions, ...(options.log ? { log: options.log } : {}) });
  const experimentFanout = new ExperimentFanout(connection, subscriber, { instanceId: fanout.instanceId });
  return {
    connection,
    subscriber,
    rateLimitStore,
    tokenCache: new RedisTokenCache(connection),
    fanout,
    experimentFanout,
    async health() {
      const health = await connection.ping();
      if (health.status === 'connected' && !subscriber.isReady) {
        return {
          ...health,
          status: 'error',
          message: 'the subscriber connection is down: ranking caches are dropped periodically until it is back',
        };
      }
      if (health.status !== 'connected') {
        return { ...health, message: `${health.message ?? 'no answer'}; rate limits fail open, shared caches bypassed` };
      }
      return health;
    },
    fanoutCounts: () =>
      (
        [
          ['ranking', fanout],
          ['experiments', experimentFanout],
        ] as const
      ).map(([channel, counts]) => ({
        channel,
        published: counts.published,
        received: counts.received,
        publishFailures: counts.publishFailures,
      })),
    attachRankingState: (state) => fanout.attach(state),
    attachExperiments: (runtime) => experimentFanout.attach(runtime),
    async close() {
      await fanout.close();
      experimentFanout.close();
      await Promise.all([subscriber.close(), connection.close()]);
    },
  };
}
