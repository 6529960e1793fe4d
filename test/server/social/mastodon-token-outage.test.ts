/**
 * What the Mastodon identity provider knows of a token while its instance is down
 * (MastodonIdentityProvider.outage): the identity last verified within the stale bound,
 * only for failures that mean "down", never after the instance refused the token; and
 * beforeRemoteCheck runs before every instance call and only then.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSocialServices, MastodonIdentityProvider, type SocialServices } from '../../../server/platform/social/social.service.js';
import { socialOptionsFromEnv } from '../../../server/platform/social/social-options.js';
import { startMastodonInstance, testSocialServices, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';

const VERIFY = '/api/v1/accounts/verify_credentials';

let instance: MastodonTestInstance;
let social: SocialServices;
let clock = 1_000_000;

beforeAll(async () => {
  instance = await startMastodonInstance({ statuses: 10 });
  social = testSocialServices();
});

afterAll(async () => {
  await social.close();
  await instance.close();
});

afterEach(() => {
  instance.clearFaults();
});

function provider(): MastodonIdentityProvider {
  return new MastodonIdentityProvider({ client: social.client, cacheTtlMs: 60_000, staleTtlMs: 600_000, now: () => clock });
}

/** resolve, and on failure what outage() says of it. */
async function resolveOrOutage(p: MastodonIdentityProvider, token: string) {
  const context = { socialInstance: instance.host };
  try {
    return { identity: await p.resolve(token, context) };
  } catch (error) {
    return { error, outage: p.outage(token, context, error) };
  }
}

describe('MastodonIdentityProvider during an outage', () => {
  it('keeps the last verified identity until the stale bound, then knows none', async () => {
    const p = provider();
    const token = instance.issueToken(0);
    const verified = await resolveOrOutage(p, token);
    expect(verified.identity?.userId).toBe(`${instance.accountIdOf(token)}@${instance.host}`);

    instance.fault({ kind: 'status', status: 502, path: VERIFY });
    clock += 61_000; // past the cache lifetime: the instance is asked, and fails
    const during = await resolveOrOutage(p, token);
    expect(during.error).toBeDefined();
    expect(during.outage).toEqual({ lastVerified: verified.identity, source: 'social' });

    clock += 540_000; // 601 s after the verification: past the stale bound
    const later = await resolveOrOutage(p, token);
    expect(later.outage).toEqual({ lastVerified: undefined, source: 'social' });
  });

  it('once a known token could not be checked, its instance is not asked again about it for 30 s', async () => {
    const p = provider();
    const token = instance.issueToken(0);
    const verified = await resolveOrOutage(p, token);
    clock += 61_000;
    instance.fault({ kind: 'status', status: 500, path: VERIFY });
    const before = instance.count(VERIFY);
    expect((await resolveOrOutage(p, token)).outage?.lastVerified).toEqual(verified.identity);
    expect(instance.count(VERIFY)).toBe(before + 1);
    clock += 29_000;
    const repeated = await resolveOrOutage(p, token);
    expect(repeated.outage?.lastVerified).toEqual(verified.identity);
    expect(instance.count(VERIFY)).toBe(before + 1);
    clock += 2_000;
    instance.clearFaults();
    expect((await resolveOrOutage(p, token)).identity).toEqual(verified.identity);
    expect(instance.count(VERIFY)).toBe(before + 2);
  });

  it('a token never verified has no identity in an outage, and failures that are not outages are no outage', async () => {
    const p = provider();
    instance.fault({ kind: 'status', status: 500, path: VERIFY });
    expect((await resolveOrOutage(p, instance.issueToken(1))).outage).toEqual({ lastVerified: undefined, source: 'social' });
    instance.clearFaults();
    // A 404 (not a Mastodon API) or an answer without an account are not "down": the 503 stays.
    instance.fault({ kind: 'status', status: 404, path: VERIFY });
    const notMastodon = await resolveOrOutage(p, instance.issueToken(1));
    expect(notMastodon.error).toBeDefined();
    expect(notMastodon.outage).toBeUndefined();
  });

  it('after the instance refused a token, an outage never brings its old identity back', async () => {
    const p = provider();
    const token = instance.issueToken(2);
    expect((await resolveOrOutage(p, token)).identity).toBeDefined();
    clock += 61_000;
    instance.revokeToken(token);
    expect(await resolveOrOutage(p, token)).toEqual({ identity: undefined });
    clock += 31_000; // the refusal is forgotten; the instance is down
    instance.fault({ kind: 'status', status: 500, path: VERIFY });
    expect((await resolveOrOutage(p, token)).outage).toEqual({ lastVerified: undefined, source: 'social' });
  });

  it('beforeRemoteCheck runs before each instance call and never for an answer from the cache; when it throws, no call', async () => {
    const p = provider();
    const token = instance.issueToken(0);
    let charged = 0;
    const context = {
      socialInstance: instance.host,
      beforeRemoteCheck: async () => {
        charged += 1;
      },
    };
    const before = instance.count(VERIFY);
    await p.resolve(token, context);
    await p.resolve(token, context);
    expect(charged).toBe(1);
    expect(instance.count(VERIFY)).toBe(before + 1);
    const refusing = {
      socialInstance: instance.host,
      beforeRemoteCheck: () => Promise.reject(new Error('limited')),
    };
    await expect(p.resolve('another-made-up-token', refusing)).rejects.toThrow('limited');
    expect(instance.count(VERIFY)).toBe(before + 1);
  });
});

describe('RECSVC_SOCIAL_TOKEN_STALE_SECONDS', () => {
  it('sets the stale bound (default one hour), 0 meaning the cache lifetime only', () => {
    expect(socialOptionsFromEnv({}).tokenStaleTtlMs).toBe(3_600_000);
    expect(socialOptionsFromEnv({ RECSVC_SOCIAL_TOKEN_STALE_SECONDS: '0' }).tokenStaleTtlMs).toBe(0);
  });

  it('reaches the identity provider that serve builds (createSocialServices)', async () => {
    const options = socialOptionsFromEnv({ RECSVC_ALLOW_INSECURE_INSTANCES: '1', RECSVC_SOCIAL_TOKEN_STALE_SECONDS: '120' });
    const built = createSocialServices({ ...options, tokenCacheTtlMs: 60_000 }, { now: () => clock });
    try {
      const token = instance.issueToken(2);
      const context = { socialInstance: instance.host };
      const identity = await built.identityProvider.resolve(token, context);
      instance.fault({ kind: 'status', status: 503, path: VERIFY });
      clock += 61_000; // past the cache lifetime, within the 120 s stale bound
      const during = await built.identityProvider.resolve(token, context).catch((error: unknown) => error);
      expect(built.identityProvider.outage(token, context, during)).toEqual({ lastVerified: identity, source: 'social' });
      clock += 60_000; // 121 s after the verification: past the bound set by the setting
      const later = await built.identityProvider.resolve(token, context).catch((error: unknown) => error);
      expect(built.identityProvider.outage(token, context, later)).toEqual({ lastVerified: undefined, source: 'social' });
    } finally {
      await built.close();
    }
  });
});
