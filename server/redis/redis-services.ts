/**
 * Everything Redis gives an app (RECSVC_REDIS_URL): shared rate-limit counters, the shared
 * social-token cache, the ranking state's invalidation fan-out, and the health check. One
 * command connection and one subscriber connection per process. Built before the app;
 * `attachRankingState` once the state exists; `close` on shutdown.
 */
import type { ComponentHealth } from '../health/health.service.js';
import { RedisRateLimitStore } from '../rate-limit/redis-rate-limit.store.js';
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
  /** One PING (health's `redis` component); says when rate limits fail open. */
  health(): Promise<ComponentHealth>;
  attachRankingState(state: FanoutTarget): Promise<void>;
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
  return {
    connection,
    subscriber,
    rateLimitStore,
    tokenCache: new RedisTokenCache(connection),
    fanout,
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
    attachRankingState: (state) => fanout.attach(state),
    async close() {
      await fanout.close();
      await Promise.all([subscriber.close(), connection.close()]);
    },
  };
}
