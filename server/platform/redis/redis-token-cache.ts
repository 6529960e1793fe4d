/**
 * The social-token verification cache shared by every instance (SharedTokenCache of
 * server/platform/social/mastodon-identity.ts), in Redis: entries named by an HMAC of (instance,
 * token) under a key all instances share — created once in Redis (SET NX) and read at first
 * use — so a dump of the entries cannot be tested against guessed tokens without it, and the
 * token itself is never stored. Every failure (Redis down, slow, key not read yet) is a miss:
 * the provider asks the instance, as without Redis.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { SharedTokenCache } from '../social/mastodon-identity.js';
import type { RedisConnection } from './redis-connection.js';

export class RedisTokenCache implements SharedTokenCache {
  private secret: Buffer | undefined;
  private readonly entryPrefix: string;

  constructor(private readonly redis: RedisConnection) {
    this.entryPrefix = `${redis.keyPrefix}social-token:`;
  }

  async get(instanceHost: string, token: string): Promise<string | undefined> {
    try {
      const key = await this.key(instanceHost, token);
      return (await this.redis.client.get(key)) ?? undefined;
    } catch {
      return undefined;
    }
  }

  async set(instanceHost: string, token: string, value: string, ttlMs: number): Promise<void> {
    try {
      await this.redis.client.set(await this.key(instanceHost, token), value, 'PX', Math.max(1, Math.round(ttlMs)));
    } catch {
      // Not shared this time: another instance asks the social instance itself.
    }
  }

  async delete(instanceHost: string, token: string): Promise<void> {
    try {
      await this.redis.client.unlink(await this.key(instanceHost, token));
    } catch {
      // Left behind, the entry expires with its TTL (the token cache's lifetime).
    }
  }

  async clear(): Promise<void> {
    try {
      let cursor = '0';
      do {
        const [next, keys] = await this.redis.client.scan(cursor, 'MATCH', `${this.entryPrefix}e:*`, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await this.redis.client.unlink(...keys);
      } while (cursor !== '0');
    } catch {
      // Entries left behind expire with their TTL (the token cache's lifetime).
    }
  }

  private async key(instanceHost: string, token: string): Promise<string> {
    this.secret ??= await this.sharedSecret();
    const name = createHmac('sha256', this.secret).update(instanceHost).update('\n').update(token).digest('base64url');
    return `${this.entryPrefix}e:${name}`;
  }

  /** The HMAC key every instance uses: the first instance to ask creates it. */
  private async sharedSecret(): Promise<Buffer> {
    const secretKey = `${this.entryPrefix}hmac-key`;
    await this.redis.client.set(secretKey, randomBytes(32).toString('base64'), 'NX');
    const stored = await this.redis.client.get(secretKey);
    if (stored === null) throw new Error('the shared token-cache key vanished');
    return Buffer.from(stored, 'base64');
  }
}
