/**
 * The ratio setting drives the blended timelines (real HTTP, the Mastodon test instance):
 * the user sets `recommendation_ratio` through `/api/v1/settings` with their own Mastodon
 * token, and their home timeline blends at that ratio; null brings back the default 0.3.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REASON_TEXTS } from '../../../src/ranking/reason-text.js';
import type { SocialServices } from '../../../server/platform/social/social.service.js';
import {
  startMastodonInstance,
  testSocialServices,
  withSocial,
  type Json,
  type MastodonTestInstance,
} from '../../helpers/mastodon-instance.js';
import { settingsHarness, type SettingsHarness } from './settings-test-app.js';
import { copiedStatuses, mapAsShown, unfollowedStatuses } from '../timelines/timelines-test-app.js';

let instance: MastodonTestInstance;
let social: SocialServices;
let h: SettingsHarness;

beforeAll(async () => {
  instance = await startMastodonInstance();
  social = testSocialServices();
  h = await settingsHarness({ ...withSocial(social), social });
  // Candidates: ivan's and newsbot's statuses (never on alice's home page), copied for 15 unknown authors.
  const own = unfollowedStatuses(instance);
  const copies = copiedStatuses(own, 15, { id: 'c', name: 'copy', idDigit: '9' });
  const seeded = await h.app.inject({
    method: 'POST',
    url: '/api/v1/posts/batch',
    headers: await h.adminHeaders(),
    payload: { statuses: [...own, ...copies] },
  });
  expect(seeded.statusCode, seeded.body).toBe(201);
  // As if alice's instance had shown them under these ids: injected without a lookup.
  await mapAsShown(h.database, instance.host, [...own, ...copies]);
});

afterAll(async () => {
  await h.close();
  await social.close();
  await instance.close();
});

function asUser(token: string) {
  return { authorization: `Bearer ${token}`, 'x-social-instance': instance.host };
}

async function injectedCount(token: string): Promise<number> {
  const response = await h.app.inject({ url: '/api/v1/timelines/home?limit=20', headers: asUser(token) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Json[]>().filter((status) => status.is_recommendation === true).length;
}

describe('recommendation_ratio from /api/v1/settings', () => {
  it('blends the home timeline at the ratio the user set, and at the default again after null', async () => {
    const token = instance.issueToken(0);
    const set = async (ratio: number | null) => {
      const response = await h.app.inject({
        method: 'PATCH',
        url: '/api/v1/settings',
        headers: asUser(token),
        payload: { recommendation_ratio: ratio },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().data.user_id).toBe(`${instance.accountIdOf(token)}@${instance.host}`);
    };
    expect(await injectedCount(token)).toBe(6);
    await set(0);
    expect(await injectedCount(token)).toBe(0);
    await set(0.1);
    expect(await injectedCount(token)).toBe(2);
    await set(null);
    expect(await injectedCount(token)).toBe(6);
  });

  it("writes the injected statuses' reasons in the language of Accept-Language", async () => {
    const token = instance.issueToken(0);
    const response = await h.app.inject({ url: '/api/v1/timelines/home?limit=20', headers: { ...asUser(token), 'accept-language': 'de' } });
    expect(response.headers['content-language']).toBe('de');
    const injected = response.json<Json[]>().filter((status) => status.is_recommendation === true);
    expect(injected.length).toBeGreaterThan(0);
    const german = Object.values(REASON_TEXTS.de).map((template) => template.split('{')[0] as string);
    for (const status of injected) {
      const reason = (status.recommendation_metadata as { reason_string: string }).reason_string;
      expect(
        german.some((prefix) => reason.startsWith(prefix)),
        reason,
      ).toBe(true);
    }
  });
});
