/**
 * The engagement rate (interactions per injected recommendation) and the ratio it selects:
 * unit-tested, then end to end through the real routes (home timeline and interactions)
 * against the Mastodon test instance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_SERVED, RecommendationEngagement } from '../../../server/timelines/engagement.js';
import { ENGAGED_INJECTION_RATIO, TimelineService, type TimelineDeps } from '../../../server/timelines/timelines.service.js';
import { startMastodonInstance, type Json, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { copiedStatuses, timelinesHarness, unfollowedStatuses, type TimelinesHarness } from './timelines-test-app.js';

function service(deps: Partial<TimelineDeps>): TimelineService {
  return new TimelineService({ client: undefined, posts: undefined, recommendations: undefined, ...deps } as unknown as TimelineDeps);
}

describe('RecommendationEngagement', () => {
  it('is unknown until enough recommendations were served, then the share interacted with', async () => {
    let interacted: string[] = [];
    const engagement = new RecommendationEngagement({ interactedPostIds: async () => interacted });
    const served = Array.from({ length: MIN_SERVED }, (_, i) => `p${i}`);
    engagement.noteServed('u', served.slice(0, MIN_SERVED - 1));
    expect(await engagement.rate('u')).toBeUndefined();
    engagement.noteServed('u', served.slice(MIN_SERVED - 1));
    interacted = [...served.slice(0, 15), 'elsewhere'];
    expect(await engagement.rate('u')).toBeCloseTo(15 / MIN_SERVED);
    expect(await engagement.rate('other')).toBeUndefined();
  });
});

describe('ratio', () => {
  it('is 0.3 by default, 0.4 above 0.7 engagement, and the preference wins', async () => {
    expect(await service({}).ratioFor('u')).toBe(0.3);
    expect(await service({ engagementRate: async () => 0.7 }).ratioFor('u')).toBe(0.3);
    expect(await service({ engagementRate: async () => 0.75 }).ratioFor('u')).toBe(ENGAGED_INJECTION_RATIO);
    const preferences = { recommendationRatio: async () => 0.1 };
    expect(await service({ engagementRate: async () => 0.9, preferences }).ratioFor('u')).toBe(0.1);
    expect(await service({ engagementRate: async () => 0.9, preferences: { recommendationRatio: async () => null } }).ratioFor('u')).toBe(
      0.4,
    );
  });
});

describe('the engaged ratio end to end', () => {
  let instance: MastodonTestInstance;
  let h: TimelinesHarness;

  beforeAll(async () => {
    instance = await startMastodonInstance();
    // Bob follows only alice, who wrote nothing yet: her statuses give bob a home page as long as alice's.
    for (let i = 0; i < 25; i++)
      instance.postStatus({ account: 'alice', text: `alice writes ${i}`, createdMs: Date.now() - 7_200_000 + i });
    h = await timelinesHarness();
    const own = unfollowedStatuses(instance);
    await h.seed([...own, ...copiedStatuses(own, 20, { id: 'e', name: 'engaged', idDigit: '8' })], instance);
  });

  afterAll(async () => {
    await h?.close();
    await instance?.close();
  });

  const headers = (token: string) => ({ authorization: `Bearer ${token}`, 'x-social-instance': instance.host });
  const userIdOf = (token: string): string => `${instance.accountIdOf(token) as string}@${instance.host}`;

  async function injectedIds(token: string): Promise<string[]> {
    const response = await h.app.inject({ url: '/api/v1/timelines/home?limit=20', headers: headers(token) });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json<Json[]>().length).toBeGreaterThanOrEqual(20);
    return response
      .json<Json[]>()
      .filter((status) => status.is_recommendation === true)
      .map((status) => status.id as string);
  }

  /** Pages until MIN_SERVED recommendations were injected (each at the default 0.3: 6 of 20), then favourites `share` of them. */
  async function serveAndEngage(token: string, share: number): Promise<void> {
    const served: string[] = [];
    while (served.length < MIN_SERVED) {
      const injected = await injectedIds(token);
      expect(injected).toHaveLength(6);
      served.push(...injected);
    }
    for (const postId of served.slice(0, Math.round(share * served.length))) {
      const response = await h.app.inject({
        method: 'POST',
        url: '/api/v1/interactions',
        headers: headers(token),
        payload: { user_id: userIdOf(token), post_id: postId, action_type: 'favorite' },
      });
      expect(response.statusCode, response.body).toBe(201);
    }
  }

  it('gives 0.4 of the page to a user whose engagement rate is above 0.7, and 0.3 to one below', async () => {
    const engaged = instance.issueToken('alice');
    await serveAndEngage(engaged, 0.75);
    expect(await injectedIds(engaged)).toHaveLength(8);

    const lukewarm = instance.issueToken('bob');
    await serveAndEngage(lukewarm, 0.5);
    expect(await injectedIds(lukewarm)).toHaveLength(6);
  });
});
