/**
 * The shared social-token cache keeps no Mastodon token in Redis (README, "Scale-out with
 * Redis": "keyed by an HMAC of instance and token (never the token)"). An app wired to Redis
 * as `recsvc serve` is (AppOptions.redis: shared token cache and rate-limit counters) verifies
 * a token against the Mastodon test instance; then every key under the file's prefix, and
 * every value of every type, is read back and searched for the token: in clear, base64,
 * base64url, hex, an unkeyed SHA-256 of it, and inside any value that decodes from base64.
 * Messages published on the prefix's channels meanwhile are searched too. A token the
 * instance refused is not stored either.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMIT_POLICY } from '../../src/rate-limit/policy.js';
import { createRedisServices, type RedisServices } from '../../server/platform/redis/redis-services.js';
import type { SocialServices } from '../../server/platform/social/social.service.js';
import { startMastodonInstance, testSocialServices, withSocial, type MastodonTestInstance } from '../helpers/mastodon-instance.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { flushPrefix, redisUnavailable, suiteTitle, TEST_REDIS_URL, testPrefix } from './redis-test-env.js';

const unavailable = await redisUnavailable();
const prefix = testPrefix('token-secrecy');

/** Every key matching `pattern`, with its type and every string it holds (members, fields, scores, entries). */
async function dump(client: Redis, pattern: string): Promise<Array<{ key: string; type: string; texts: string[] }>> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  const entries: Array<{ key: string; type: string; texts: string[] }> = [];
  for (const key of [...new Set(keys)]) {
    const type = await client.type(key);
    let texts: string[];
    switch (type) {
      case 'string':
        texts = [(await client.get(key)) ?? ''];
        break;
      case 'hash':
        texts = Object.entries(await client.hgetall(key)).flat();
        break;
      case 'list':
        texts = await client.lrange(key, 0, -1);
        break;
      case 'set':
        texts = await client.smembers(key);
        break;
      case 'zset':
        texts = await client.zrange(key, '0', '-1', 'WITHSCORES');
        break;
      case 'stream':
        texts = [JSON.stringify(await client.xrange(key, '-', '+'))];
        break;
      case 'none':
        continue; // expired between SCAN and TYPE
      default:
        texts = [`unreadable type ${type}`];
    }
    entries.push({ key, type, texts });
  }
  return entries;
}

/** Whole spellings a leaked token could take (encodings of it, and an unkeyed hash of it). */
function spellingsOf(token: string): string[] {
  const bytes = Buffer.from(token, 'utf8');
  const sha = createHash('sha256').update(token).digest();
  return [bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex'), sha.toString('hex'), sha.toString('base64url')];
}

/**
 * `text`, and what each base64-looking run in it decodes to, from each of the four alignments
 * (base64 and base64url alike), so a token encoded inside a longer value is found wherever it starts.
 */
function readings(text: string): string[] {
  const out = [text];
  for (const run of text.match(/[A-Za-z0-9+/_-]{8,}/g) ?? []) {
    for (let shift = 0; shift < 4; shift += 1) {
      const part = run.slice(shift).replace(/-/g, '+').replace(/_/g, '/');
      out.push(Buffer.from(part, 'base64').toString('latin1'));
    }
  }
  return out;
}

/** Fails when any 16 consecutive characters of the token, or a whole encoding of it, appear (in clear or decoded). */
function expectNoTrace(haystacks: string[], token: string, where: string): void {
  const windows = Array.from({ length: token.length - 15 }, (_, i) => token.slice(i, i + 16));
  for (const haystack of haystacks) {
    for (const reading of readings(haystack)) {
      for (const needle of [...windows, ...spellingsOf(token)]) {
        expect(reading.includes(needle), `${where} holds part of the token (${needle.slice(0, 8)}…): ${haystack.slice(0, 120)}`).toBe(
          false,
        );
      }
    }
  }
}

describe.skipIf(unavailable !== undefined)(suiteTitle('the shared token cache never holds a token', unavailable), () => {
  let mastodon: MastodonTestInstance;
  let redis: RedisServices;
  let social: SocialServices;
  let t: TestApp;
  let inspector: Redis;
  let listener: Redis;
  const published: string[] = [];

  beforeAll(async () => {
    mastodon = await startMastodonInstance({ statuses: 5 });
    redis = await createRedisServices({ url: TEST_REDIS_URL, keyPrefix: prefix });
    social = testSocialServices();
    t = await createTestApp({
      ...withSocial(social),
      redis,
      // Rate-limit counters in Redis too: their keys are scanned with the rest.
      rateLimit: DEFAULT_RATE_LIMIT_POLICY,
    });
    inspector = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    listener = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    listener.on('pmessage', (_pattern: string, channel: string, message: string) => published.push(channel, message));
    await listener.psubscribe(`${prefix}*`);
  });

  afterAll(async () => {
    await t?.close();
    await social?.close();
    await redis?.close();
    await mastodon?.close();
    listener?.disconnect();
    inspector?.disconnect();
    await flushPrefix(prefix);
  });

  it('stores the verification under an HMAC name, and neither the keys nor the values contain the token', async () => {
    const token = mastodon.issueToken(1);
    const accountId = mastodon.accountIdOf(token)!;
    const userId = `${accountId}@${mastodon.host}`;
    const headers = { authorization: `Bearer ${token}`, 'x-social-instance': mastodon.host };
    mastodon.resetCounts();
    const recommendations = await t.app.inject({ url: `/api/v1/recommendations?user_id=${encodeURIComponent(userId)}`, headers });
    expect(recommendations.statusCode, recommendations.body).toBe(200);
    // Through the proxy too (the token is forwarded to the instance, and must still stay out of Redis).
    const proxied = await t.app.inject({ url: '/api/v1/proxy/api/v1/timelines/home?limit=2', headers });
    expect(proxied.statusCode, proxied.body).toBe(200);
    expect(mastodon.count('/api/v1/accounts/verify_credentials')).toBe(1);

    // The share is written in the background: wait for the entry.
    const entryPattern = `${prefix}social-token:e:*`;
    let entries: Awaited<ReturnType<typeof dump>> = [];
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      entries = await dump(inspector, entryPattern);
      if (entries.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(entries, 'the verification was shared through Redis').toHaveLength(1);
    const entry = entries[0]!;
    // It is this token's verification (so the search below looks at the right thing).
    const stored = JSON.parse(entry.texts[0]!) as { account: { id: string }; verifiedAtMs: number };
    expect(stored.account.id).toBe(accountId);
    // Named by a 256-bit HMAC (base64url), not by the token.
    expect(entry.key).toMatch(new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}social-token:e:[A-Za-z0-9_-]{43}$`));

    const everything = await dump(inspector, `${prefix}*`);
    const keyNames = everything.map((item) => item.key);
    expect(keyNames).toContain(`${prefix}social-token:hmac-key`);
    expect(keyNames.length, keyNames.join('\n')).toBeGreaterThan(2); // the rate-limit counters are there too
    expectNoTrace(keyNames, token, 'a key name');
    for (const item of everything) expectNoTrace(item.texts, token, `the value of ${item.key} (${item.type})`);
    // Nor anywhere else in the test database (another prefix, or no prefix at all).
    const whole = await dump(inspector, '*');
    expectNoTrace(
      whole.flatMap((item) => [item.key, ...item.texts]),
      token,
      'the test database',
    );
    expectNoTrace(published, token, 'a message published on the prefix');
  });

  it('stores nothing for a token the instance refused', async () => {
    const refused = `refused-${randomBytes(24).toString('base64url')}`;
    const before = (await dump(inspector, `${prefix}social-token:e:*`)).length;
    const response = await t.app.inject({
      url: '/api/v1/proxy/api/v1/timelines/home',
      headers: { authorization: `Bearer ${refused}`, 'x-social-instance': mastodon.host },
    });
    expect(response.statusCode, response.body).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await dump(inspector, `${prefix}social-token:e:*`)).length).toBe(before);
    const everything = await dump(inspector, `${prefix}*`);
    expectNoTrace(
      everything.flatMap((item) => [item.key, ...item.texts]),
      refused,
      'Redis',
    );
    expectNoTrace(published, refused, 'a message published on the prefix');
  });
});
