import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import { DEFAULT_SOCIAL_OPTIONS, socialOptionsFromEnv } from '../../../server/platform/social/social-options.js';

describe('socialOptionsFromEnv', () => {
  it('defaults: HTTPS only, no default instance, 5 s timeouts, 2 MiB cap, 5-minute token cache', () => {
    expect(socialOptionsFromEnv({})).toEqual(DEFAULT_SOCIAL_OPTIONS);
    expect(DEFAULT_SOCIAL_OPTIONS).toMatchObject({
      allowInsecure: false,
      defaultInstance: undefined,
      connectTimeoutMs: 5_000,
      headersTimeoutMs: 5_000,
      bodyTimeoutMs: 5_000,
      maxResponseBytes: 2 * 1024 * 1024,
      tokenCacheTtlMs: 300_000,
      tokenStaleTtlMs: 3_600_000,
    });
  });

  it('reads every variable, and keeps the default instance in canonical form', () => {
    expect(
      socialOptionsFromEnv({
        RECSVC_DEFAULT_INSTANCE: ' Mastodon.Social ',
        RECSVC_INSTANCE_CONNECT_TIMEOUT_MS: '1000',
        RECSVC_INSTANCE_HEADERS_TIMEOUT_MS: '2000',
        RECSVC_INSTANCE_BODY_TIMEOUT_MS: '3000',
        RECSVC_INSTANCE_REQUEST_TIMEOUT_MS: '4000',
        RECSVC_INSTANCE_MAX_RESPONSE_BYTES: '65536',
        RECSVC_SOCIAL_TOKEN_CACHE_SECONDS: '60',
        RECSVC_SOCIAL_TOKEN_CACHE_SIZE: '50',
        RECSVC_SOCIAL_TOKEN_STALE_SECONDS: '7200',
        RECSVC_INSTANCE_NEW_POSTS_PER_HOUR: '120',
      }),
    ).toEqual({
      defaultInstance: 'mastodon.social',
      allowInsecure: false,
      connectTimeoutMs: 1000,
      headersTimeoutMs: 2000,
      bodyTimeoutMs: 3000,
      requestTimeoutMs: 4000,
      maxResponseBytes: 65536,
      tokenCacheTtlMs: 60_000,
      tokenCacheCapacity: 50,
      tokenStaleTtlMs: 7_200_000,
      newPostsPerHour: 120,
      timelineRecommendations: 'boost',
    });
  });

  it('a local default instance needs the insecure flag', () => {
    expect(() => socialOptionsFromEnv({ RECSVC_DEFAULT_INSTANCE: '127.0.0.1:3000' })).toThrow(InputError);
    expect(socialOptionsFromEnv({ RECSVC_DEFAULT_INSTANCE: '127.0.0.1:3000', RECSVC_ALLOW_INSECURE_INSTANCES: '1' })).toMatchObject({
      defaultInstance: '127.0.0.1:3000',
      allowInsecure: true,
    });
  });

  it.each([
    ['RECSVC_ALLOW_INSECURE_INSTANCES', 'yes'],
    ['RECSVC_ALLOW_INSECURE_INSTANCES', 'true'],
    ['RECSVC_DEFAULT_INSTANCE', 'localhost'],
    ['RECSVC_DEFAULT_INSTANCE', 'https://mastodon.social'],
    ['RECSVC_INSTANCE_CONNECT_TIMEOUT_MS', '0'],
    ['RECSVC_INSTANCE_NEW_POSTS_PER_HOUR', '0'],
    ['RECSVC_INSTANCE_BODY_TIMEOUT_MS', '1.5'],
    ['RECSVC_INSTANCE_MAX_RESPONSE_BYTES', '10'],
    ['RECSVC_INSTANCE_HEADERS_TIMEOUT_MS', '20000'],
    ['RECSVC_SOCIAL_TOKEN_CACHE_SIZE', '-1'],
    ['RECSVC_SOCIAL_TOKEN_STALE_SECONDS', 'an hour'],
  ])('refuses %s=%s, naming it', (name, value) => {
    expect(() => socialOptionsFromEnv({ [name]: value })).toThrow(name);
  });
});
