/**
 * The Redis suites run when a server answers at RECSVC_TEST_REDIS_URL (default
 * redis://127.0.0.1:6379/15) and are skipped with the reason otherwise. Each test file
 * works under its own key prefix and deletes only that prefix's keys.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisConnection, type RedisConnectionOptions, type RedisLog } from '../../server/platform/redis/redis-connection.js';

export const TEST_REDIS_URL = process.env.RECSVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/15';

/** undefined when Redis answers PING; else why the suite is skipped (also printed once). */
export async function redisUnavailable(): Promise<string | undefined> {
  const client = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    const reason = `no Redis at ${TEST_REDIS_URL} (${(error as Error).message}); run .ci/redis-up.sh`;
    console.warn(`Redis suite skipped: ${reason}`);
    return reason;
  } finally {
    client.disconnect();
  }
}

export function suiteTitle(title: string, unavailable: string | undefined): string {
  return unavailable === undefined ? `Redis: ${title}` : `Redis: ${title} — SKIPPED: ${unavailable}`;
}

/** A fresh key prefix for one test file, e.g. `recsvc-test:rate-limit:3f9a1c:`. */
export function testPrefix(name: string): string {
  return `recsvc-test:${name}:${randomBytes(4).toString('hex')}:`;
}

/** A log that keeps its lines (tests assert what was logged). */
export function recordingLog(): RedisLog & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(`info: ${m}`), warn: (m) => lines.push(`warn: ${m}`) };
}

/** A connected connection under `prefix`. */
export async function connectTest(prefix: string, log?: RedisLog, extra: Partial<RedisConnectionOptions> = {}): Promise<RedisConnection> {
  const connection = new RedisConnection({
    url: TEST_REDIS_URL,
    keyPrefix: prefix,
    ...(log ? { log } : {}),
    name: 'recsvc-test',
    ...extra,
  });
  await connection.connect();
  return connection;
}

/** Deletes every key under `prefix` (only those). */
export async function flushPrefix(prefix: string): Promise<void> {
  const client = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 0 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}

/** Kills `connection`'s socket from the server side (CLIENT KILL), as a Redis restart or a network cut would. */
export async function killFromServer(connection: RedisConnection): Promise<void> {
  const id = Number(await connection.client.client('ID'));
  const killer = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 0 });
  try {
    await killer.client('KILL', 'ID', String(id));
  } finally {
    killer.disconnect();
  }
}

/** Resolves once `condition` holds (polled every 20 ms; the test's own timeout bounds it). */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}
