/**
 * Timelines while the caller's instance is down (decisions.md, "The social server"): the
 * token cannot be verified, yet the timelines answer 200 from the service's store, flagged
 * by X-Recsvc-Degraded — with the user's recommendations when the token's last verified
 * identity is known, else recent stored posts for nobody in particular. A token the
 * instance refuses stays 401, and other routes keep their 503.
 *
 * The token cache lifetime is 0 here, so every request asks verify_credentials again and
 * meets the fault; the stale bound (1 hour by default) keeps the last verified identity.
 * The instance's timeouts are 2.5 s (not the shared 1 s) and the slow fault answers well past
 * them: a verification before the outage must not time out on a heavily loaded CI machine,
 * and a slow answer must not beat its timeout by a narrow margin.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMastodonInstance, type Fault, type Json, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { timelinesHarness, unfollowedStatuses, type TimelinesHarness } from './timelines-test-app.js';

const VERIFY = '/api/v1/accounts/verify_credentials';
const HOME = '/api/v1/timelines/home';

let instance: MastodonTestInstance;
let h: TimelinesHarness;

beforeAll(async () => {
  instance = await startMastodonInstance();
  h = await timelinesHarness({ tokenCacheTtlMs: 0, connectTimeoutMs: 2_500, headersTimeoutMs: 2_500, bodyTimeoutMs: 2_500 });
  // Candidates: statuses of accounts alice does not follow, stored before any timeline is read.
  const candidates = unfollowedStatuses(instance);
  await h.seed(candidates, instance);
});

afterAll(async () => {
  await h.close();
  await instance.close();
});

afterEach(() => {
  instance.clearFaults();
});

function get(url: string, token: string, host = instance.host) {
  return h.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, 'x-social-instance': host } });
}

const OUTAGES: ReadonlyArray<readonly [string, Fault]> = [
  ['a 500', { kind: 'status', status: 500, path: VERIFY }],
  ['a 503', { kind: 'status', status: 503, path: VERIFY }],
  ['headers slower than the timeout', { kind: 'slow', delayMs: 5_000, path: VERIFY }],
  ['a dropped connection', { kind: 'drop', path: VERIFY }],
];

describe('a token verified before the outage', () => {
  it.each(OUTAGES)(
    '%s from verify_credentials: 200 from the store, personalised, flagged, instance timeline not asked',
    async (_name, fault) => {
      const token = instance.issueToken(0);
      const before = await get(`${HOME}?limit=5`, token);
      expect(before.statusCode, before.body).toBe(200);
      expect(before.headers['x-recsvc-degraded']).toBeUndefined();

      instance.fault(fault);
      const timelineCalls = instance.count(HOME);
      // Five: the four outages read alice's one small pool of candidates (two authors), and
      // what she was shown is not injected again.
      const response = await get(`${HOME}?limit=5`, token);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['x-recsvc-degraded']).toBe('instance-unavailable');
      const body = response.json<Json[]>();
      expect(body.length).toBeGreaterThan(0);
      for (const status of body) {
        expect(status.is_recommendation).toBe(true);
        expect(status.recommendation_metadata).toMatchObject({ reason_code: expect.any(String) as unknown });
      }
      expect(response.headers.link).toBeUndefined();
      expect(instance.count(HOME)).toBe(timelineCalls);
    },
  );

  it('other routes keep their 503 for the same token', async () => {
    const token = instance.issueToken(0);
    expect((await get(`${HOME}?limit=1`, token)).statusCode).toBe(200);
    instance.fault({ kind: 'status', status: 500, path: VERIFY });
    const userId = `${instance.accountIdOf(token)}@${instance.host}`;
    const response = await get(`/api/v1/recommendations?user_id=${encodeURIComponent(userId)}`, token);
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ error: 'Service unavailable', status_code: 503 });
  });

  it('an instance that is gone entirely (connection refused) degrades the same way', async () => {
    const other = await startMastodonInstance({ statuses: 10 });
    const token = other.issueToken(0);
    expect((await get(`${HOME}?limit=1`, token, other.host)).statusCode).toBe(200);
    await other.close();
    const response = await get(`${HOME}?limit=5`, token, other.host);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-recsvc-degraded']).toBe('instance-unavailable');
    const unknown = await get(`${HOME}?limit=5`, 'never-seen-token', other.host);
    expect(unknown.statusCode, unknown.body).toBe(200);
    expect(unknown.headers['x-recsvc-degraded']).toBe('instance-unavailable-unverified');
  });
});

describe('a token never verified', () => {
  it.each(OUTAGES)('%s: timelines answer 200 with recent stored posts, not personalised, flagged', async (_name, fault) => {
    const token = instance.issueToken(1);
    instance.fault(fault);
    for (const path of [`${HOME}?limit=5`, '/api/v1/timelines/public?limit=5']) {
      const response = await get(path, token);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['x-recsvc-degraded']).toBe('instance-unavailable-unverified');
      const body = response.json<Json[]>();
      expect(body.length).toBeGreaterThan(0);
      for (const status of body) {
        expect(status.is_recommendation).toBe(false);
        expect(status).not.toHaveProperty('recommendation_metadata');
      }
    }
  });

  it('is 503 on any other route', async () => {
    instance.fault({ kind: 'status', status: 500, path: VERIFY });
    const response = await get('/api/v1/recommendations?user_id=someone', instance.issueToken(1));
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ error: 'Service unavailable', status_code: 503 });
  });
});

describe('a token the instance refuses', () => {
  it('is 401 on the timelines, even when it was verified before', async () => {
    const token = instance.issueToken(2);
    expect((await get(`${HOME}?limit=1`, token)).statusCode).toBe(200);
    instance.fault({ kind: 'status', status: 401, path: VERIFY, token });
    const response = await get(HOME, token);
    expect(response.statusCode).toBe(401);
    expect(response.headers['x-recsvc-degraded']).toBeUndefined();
    // The refusal replaced the last verified identity: an outage now does not bring it back.
    instance.clearFaults();
    instance.fault({ kind: 'status', status: 500, path: VERIFY });
    expect((await get(HOME, token)).statusCode).toBe(401);
  });

  it('is 401 when made up', async () => {
    const response = await get(HOME, 'made-up-token-for-the-timeline');
    expect(response.statusCode).toBe(401);
  });
});
