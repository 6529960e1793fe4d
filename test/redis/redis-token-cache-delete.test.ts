/**
 * The shared social-token cache forgets one token when its instance answered 401 to it
 * (SharedTokenCache.delete): another process then cannot take the revoked token's
 * verification from Redis. Other tokens' entries stay.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisConnection } from '../../server/platform/redis/redis-connection.js';
import { RedisTokenCache } from '../../server/platform/redis/redis-token-cache.js';
import { connectTest, flushPrefix, redisUnavailable, suiteTitle, testPrefix } from './redis-test-env.js';

const unavailable = await redisUnavailable();
const prefix = testPrefix('token-delete');

describe.skipIf(unavailable !== undefined)(suiteTitle('the shared token cache forgets a rejected token', unavailable), () => {
  let connection: RedisConnection;
  let otherProcess: RedisConnection;

  beforeAll(async () => {
    connection = await connectTest(prefix);
    otherProcess = await connectTest(prefix);
  });

  afterAll(async () => {
    await connection?.close();
    await otherProcess?.close();
    await flushPrefix(prefix);
  });

  it('deletes the entry of that instance and token only, for every process', async () => {
    const here = new RedisTokenCache(connection);
    const there = new RedisTokenCache(otherProcess);
    await here.set('a.example', 'revoked-token', '{"v":1}', 60_000);
    await here.set('a.example', 'kept-token', '{"v":2}', 60_000);
    await here.set('b.example', 'revoked-token', '{"v":3}', 60_000);
    expect(await there.get('a.example', 'revoked-token')).toBe('{"v":1}');
    await here.delete('a.example', 'revoked-token');
    expect(await there.get('a.example', 'revoked-token')).toBeUndefined();
    expect(await there.get('a.example', 'kept-token')).toBe('{"v":2}');
    expect(await there.get('b.example', 'revoked-token')).toBe('{"v":3}');
  });
});
