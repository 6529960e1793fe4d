/**
 * A Mastodon user's id is `<account id>@<host>`, and a host name may be 253 characters:
 * such a user must still be able to ask for their own recommendations by user id. The
 * test instance answers under a 253-character name: the identity provider's client sends
 * that name's requests to 127.0.0.1 (a stand-in for DNS; insecure mode resolves with the
 * system's resolver, which knows no such name).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_USER_ID_LENGTH } from '../../../src/schemas/common.schema.js';
import {
  InstanceClient,
  MastodonIdentityProvider,
  type InstanceAddress,
  type InstanceRequest,
  type InstanceResponse,
} from '../../../server/platform/social/social.service.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';
import { startMastodonInstance, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

/** Four labels (63, 63, 63, 61 characters) and three dots: the longest host name DNS allows. */
const LONG_HOST = ['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(61)].join('.');

let instance: MastodonTestInstance;
let client: InstanceClient;
let t: TestApp;

/** Requests to LONG_HOST go to the test instance on 127.0.0.1 (the address keeps its name otherwise). */
class LongNameClient extends InstanceClient {
  override request<T>(address: InstanceAddress, request: InstanceRequest): Promise<InstanceResponse<T>> {
    const local = address.hostname === LONG_HOST ? { ...address, hostname: '127.0.0.1', origin: instance.origin } : address;
    return super.request<T>(local, request);
  }
}

beforeAll(async () => {
  instance = await startMastodonInstance({ statuses: 10 });
  client = new LongNameClient({ allowInsecure: true });
  t = await createTestApp({ identityProviders: [new MastodonIdentityProvider({ client })] });
});

afterAll(async () => {
  await t.close();
  await client.close();
  await instance.close();
});

describe('user ids of Mastodon users on long host names', () => {
  it('the 253-character host gives a user id longer than 64, which the recommendation routes take', async () => {
    expect(LONG_HOST).toHaveLength(253);
    const token = instance.issueToken(0);
    const host = `${LONG_HOST}:${instance.port}`;
    const headers = { authorization: `Bearer ${token}`, 'x-social-instance': host };
    const userId = `${instance.accountIdOf(token)}@${host}`;
    expect(userId.length).toBeGreaterThan(253);
    expect(userId.length).toBeLessThanOrEqual(MAX_USER_ID_LENGTH);

    const query = await t.app.inject({ method: 'GET', url: `/api/v1/recommendations?user_id=${encodeURIComponent(userId)}`, headers });
    expect(query.statusCode, query.body).toBe(200);
    const body = await t.app.inject({ method: 'POST', url: '/api/v1/recommendations', headers, payload: { user_id: userId, limit: 5 } });
    expect(body.statusCode, body.body).toBe(200);
    // Someone else's id of the same length is still someone else's.
    const other = `9${userId}`.slice(0, userId.length);
    const forbidden = await t.app.inject({ method: 'GET', url: `/api/v1/recommendations?user_id=${encodeURIComponent(other)}`, headers });
    expect(forbidden.statusCode).toBe(403);
  });

  it('the same user logs interactions and feedback and reads their preferences under that id', async () => {
    const token = instance.issueToken(1);
    const host = `${LONG_HOST}:${instance.port}`;
    const headers = { authorization: `Bearer ${token}`, 'x-social-instance': host };
    const userId = `${instance.accountIdOf(token)}@${host}`;
    const statuses = [makeStatus({ n: 1 })];
    const seeded = await t.app.inject({
      method: 'POST',
      url: '/api/v1/posts/batch',
      headers: await t.adminHeaders(),
      payload: { statuses },
    });
    expect(seeded.statusCode, seeded.body).toBeLessThan(300);

    const interaction = await t.app.inject({
      method: 'POST',
      url: '/api/v1/interactions',
      headers,
      payload: { user_id: userId, post_id: postId(1), action_type: 'favorite' },
    });
    expect(interaction.statusCode, interaction.body).toBe(201);
    expect(interaction.json().data.user_id).toBe(userId);
    const feedback = await t.app.inject({
      method: 'POST',
      url: '/api/v1/recommendations/feedback',
      headers,
      payload: { user_id: userId, post_id: postId(1), feedback: 'more' },
    });
    expect(feedback.statusCode, feedback.body).toBeLessThan(300);
    const preferences = await t.app.inject({
      method: 'GET',
      url: `/api/v1/recommendations/preferences?user_id=${encodeURIComponent(userId)}`,
      headers,
    });
    expect(preferences.statusCode, preferences.body).toBe(200);
  });

  it('a user id beyond the bound is a 400 naming user_id', async () => {
    const token = await t.token(['admin']);
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/recommendations?user_id=${'u'.repeat(MAX_USER_ID_LENGTH + 1)}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ field: 'user_id' });
  });
});
