/**
 * The boost a recommendation is woven in as (server/timelines/recommendation-boosts.ts): dated
 * between its neighbours, a Mastodon reblog with every field a client reads, never a boost of a
 * boost, the service account's name saying why.
 */
import { describe, expect, it } from 'vitest';
import { boostJson, insertionTimeMs, serviceAccount } from '../../../server/timelines/recommendation-boosts.js';
import { socialOptionsFromEnv } from '../../../server/platform/social/social-options.js';

const context = { serviceOrigin: 'https://recsvc.example', instanceOrigin: 'https://mastodon.example', userId: '42@mastodon.example' };
const metadata = { reason_code: 'TRENDING_TAG', reason_string: 'Trending in #rust', score: 0.8 };
const inner = JSON.stringify({ id: '111', uri: 'https://a.example/s/1', content: '<p>hi</p>', reblog: null, is_recommendation: true });

describe('insertionTimeMs', () => {
  it('is strictly between neighbours a millisecond or more apart, and next to the only one there is', () => {
    expect(insertionTimeMs(1_000, 900, 0)).toBe(950);
    expect(insertionTimeMs(1_001, 1_000, 0)).toBe(1_000);
    expect(insertionTimeMs(1_000, 1_000, 0)).toBe(1_000);
    expect(insertionTimeMs(undefined, 900, 0)).toBe(901);
    expect(insertionTimeMs(1_000, undefined, 0)).toBe(999);
    expect(insertionTimeMs(undefined, undefined, 7)).toBe(7);
  });
});

describe('boostJson', () => {
  it('is a public reblog by the service account, dated at the insertion point, carrying the fields', () => {
    const boost = JSON.parse(boostJson({ json: inner, uri: 'https://a.example/s/1', reasonCode: 'TRENDING_TAG', metadata }, 950, context));
    expect(boost).toMatchObject({
      created_at: '1970-01-01T00:00:00.950Z',
      visibility: 'public',
      content: '',
      is_recommendation: true,
      recommendation_metadata: metadata,
      reblog: { id: '111', content: '<p>hi</p>' },
      account: { username: 'recommended', acct: 'recommended@recsvc.example', bot: true, display_name: 'Recommended: trending' },
    });
    // A snowflake of its date: sorts by id where it sorts by date.
    expect(BigInt(boost.id) >> 16n).toBe(950n);
    expect(boost.account.avatar).toBe('https://mastodon.example/avatars/original/missing.png');
  });

  it('wraps a recommended boost as its original (Mastodon never nests reblogs)', () => {
    const reblog = JSON.stringify({ id: '5', reblog: { id: '6', content: 'original', reblog: null } });
    const boost = JSON.parse(boostJson({ json: reblog, uri: 'u', reasonCode: 'X', metadata }, 1, context));
    expect(boost.reblog).toEqual({ id: '6', content: 'original', reblog: null });
  });

  it('gives two readers, and two statuses, different wrapper ids at the same time', () => {
    const a = JSON.parse(boostJson({ json: inner, uri: 'u1', reasonCode: 'X', metadata }, 5_000, context)).id;
    const b = JSON.parse(boostJson({ json: inner, uri: 'u2', reasonCode: 'X', metadata }, 5_000, context)).id;
    const c = JSON.parse(boostJson({ json: inner, uri: 'u1', reasonCode: 'X', metadata }, 5_000, { ...context, userId: 'other' })).id;
    expect(new Set([a, b, c]).size).toBe(3);
  });

  it('names the account per reason, with a generic one for codes it does not know', () => {
    expect(serviceAccount('COLLABORATIVE', context).display_name).toBe('Recommended: liked by people like you');
    expect(serviceAccount('SOMETHING_NEW', context).display_name).toBe('Recommended for you');
    expect(serviceAccount('COLLABORATIVE', context).id).not.toBe(serviceAccount('TRENDING_TAG', context).id);
  });
});

describe('RECSVC_TIMELINE_RECOMMENDATIONS', () => {
  it('is boost by default, inline on request, and anything else is refused naming the variable', () => {
    expect(socialOptionsFromEnv({}).timelineRecommendations).toBe('boost');
    expect(socialOptionsFromEnv({ RECSVC_TIMELINE_RECOMMENDATIONS: 'inline' }).timelineRecommendations).toBe('inline');
    expect(() => socialOptionsFromEnv({ RECSVC_TIMELINE_RECOMMENDATIONS: 'cw' })).toThrow(
      /RECSVC_TIMELINE_RECOMMENDATIONS must be boost or inline/,
    );
  });
});
