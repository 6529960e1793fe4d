/** The engagement rate (interactions per injected recommendation) and the ratio it selects. */
import { describe, expect, it } from 'vitest';
import { MIN_SERVED, RecommendationEngagement } from '../../../server/timelines/engagement.js';
import { ENGAGED_INJECTION_RATIO, TimelineService, type TimelineDeps } from '../../../server/timelines/timelines.service.js';

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
