/**
 * Redis and cluster settings of `serve`: RECSVC_REDIS_URL enables Redis (shared rate limits,
 * shared social-token cache, invalidation fan-out); `--cluster`/RECSVC_CLUSTER=1 says several
 * instances serve one database, and is refused without Redis — per-process rate limits and
 * caches would silently differ between instances.
 */
import { InputError } from '../../../src/errors.js';
import { DEFAULT_REDIS_KEY_PREFIX } from './redis-connection.js';

export interface RedisSettings {
  /** redis:// or rediss:// URL; undefined: no Redis (one instance, everything in memory). */
  url: string | undefined;
  /** Prefix of every key and channel (RECSVC_REDIS_PREFIX), so services can share one Redis. */
  keyPrefix: string;
  /** Several instances behind one address (--cluster / RECSVC_CLUSTER=1). */
  cluster: boolean;
}

type Env = Record<string, string | undefined>;

export const CLUSTER_WITHOUT_REDIS_MESSAGE =
  '--cluster/RECSVC_CLUSTER=1 needs RECSVC_REDIS_URL (e.g. redis://127.0.0.1:6379/0): without Redis each instance would keep its own rate limits, token cache and ranking caches';

/** Reads and checks the Redis settings; throws an InputError naming the bad one. */
export function readRedisSettings(env: Env, flags: { cluster?: boolean } = {}): RedisSettings {
  const text = env.RECSVC_REDIS_URL?.trim();
  const url = text === undefined || text === '' ? undefined : checkRedisUrl(text);
  const clusterText = env.RECSVC_CLUSTER ?? '';
  if (!['', '0', '1'].includes(clusterText)) throw new InputError(`RECSVC_CLUSTER must be 0 or 1, got "${clusterText}"`);
  const cluster = flags.cluster === true || clusterText === '1';
  if (cluster && url === undefined) throw new InputError(CLUSTER_WITHOUT_REDIS_MESSAGE);
  const keyPrefix = env.RECSVC_REDIS_PREFIX ?? DEFAULT_REDIS_KEY_PREFIX;
  if (!/^[\w.:-]{0,64}$/.test(keyPrefix)) {
    throw new InputError(`RECSVC_REDIS_PREFIX must be up to 64 letters, digits or . _ : -, got "${keyPrefix}"`);
  }
  return { url, keyPrefix, cluster };
}

function checkRedisUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InputError(`RECSVC_REDIS_URL must be a redis:// or rediss:// URL, got "${text.replace(/:[^:@/]*@/, ':***@')}"`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new InputError(`RECSVC_REDIS_URL must start with redis:// or rediss://, got "${url.protocol}//…"`);
  }
  if (!/^\/?\d*$/.test(url.pathname))
    throw new InputError(`RECSVC_REDIS_URL's path must be a database number (e.g. /0), got "${url.pathname}"`);
  return text;
}
