import { describe, expect, it } from 'vitest';
import {
  AFFINITY_HALF_LIFE_DAYS,
  applyInteraction,
  buildUserProfile,
  CandidateIndex,
  DEFAULT_ALGORITHM_CONFIG,
  emptyProfile,
  learnedPreferences,
  rankCandidates,
  type AlgorithmConfig,
  type ProfileInteraction,
} from '../../../src/ranking/index.js';
import { HOUR, NOW, post } from './fixtures.js';

const ENGAGEMENT: AlgorithmConfig = { weights: { author_preference: 0, content_engagement: 1, recency: 0, semantic_similarity: 0 } };
const DAY = 24 * HOUR;

describe('CandidateIndex updates', () => {
  it('re-ranks after count updates, removals and replacements', () => {
    const index = new CandidateIndex([post('a', { favourites: 10 }), post('b', { favourites: 1 })]);
    const profile = buildUserProfile({ userId: 'u', interactions: [{ post: post('x'), action: 'favorite', createdAtMs: NOW }] }, index);
    const top = (): string | undefined => rankCandidates(index, profile, ENGAGEMENT, { limit: 5, nowMs: NOW })[0]?.post.id;
    expect(top()).toBe('a');
    expect(index.updateCounts('b', { favourites: 50, reblogs: 0, replies: 0 })).toBe(true);
    expect(top()).toBe('b');
    expect(index.updateCounts('missing', { favourites: 1, reblogs: 0, replies: 0 })).toBe(false);
    expect(index.remove('b')).toBe(true);
    expect(top()).toBe('a');
    index.upsert(post('c', { favourites: 99 }));
    expect(top()).toBe('c');
    index.upsert(post('c', { favourites: 0 }));
    expect(top()).toBe('a');
    expect(index.size).toBe(2);
  });

  it('normalises engagement against the current maximum, also after the top post leaves', () => {
    const index = new CandidateIndex([post('a', { favourites: 100 }), post('b', { favourites: 10 })]);
    const feature = (): number | undefined =>
      rankCandidates(index, emptyProfile('u'), ENGAGEMENT, { limit: 5, nowMs: NOW }).find((i) => i.post.id === 'b')?.features
        .content_engagement;
    expect(feature()).toBeCloseTo(Math.log1p(10) / Math.log1p(100), 12);
    index.remove('a');
    expect(feature()).toBe(1);
  });

  it('keeps the newest posts and the most engaging older ones when over its bound', () => {
    const recent = Array.from({ length: 5 }, (_, i) => post(`r${i}`, { createdAtMs: NOW - i * HOUR }));
    const old = Array.from({ length: 5 }, (_, i) => post(`o${i}`, { createdAtMs: NOW - 10 * DAY, favourites: i }));
    const index = new CandidateIndex([...recent, ...old], { maxRecent: 5, maxPopular: 2 });
    expect(index.size).toBe(7);
    expect(index.get('o4')).toBeDefined();
    expect(index.get('o3')).toBeDefined();
    expect(index.get('o2')).toBeUndefined();
    for (let i = 5; i < 10; i++) index.upsert(post(`r${i}`, { createdAtMs: NOW + i * HOUR }));
    expect(index.size).toBeLessThanOrEqual(Math.floor(7 * 1.1));
    expect(index.get('r9')).toBeDefined();
  });

  it('lists trending tags in the recent window only', () => {
    const posts = [
      ...['1', '2', '3'].map((id) => post(`n${id}`, { tags: ['now'], createdAtMs: NOW - HOUR })),
      ...['1', '2', '3'].map((id) => post(`o${id}`, { tags: ['then'], createdAtMs: NOW - 3 * DAY })),
      post('lone', { tags: ['rare'], createdAtMs: NOW - HOUR }),
    ];
    const index = new CandidateIndex(posts);
    expect(index.trending(NOW).map((t) => t.tag)).toEqual(['now']);
    expect(index.trending(NOW - 2.5 * DAY).map((t) => t.tag)).toEqual(['then']);
  });
});

describe('UserProfile updates', () => {
  const liked = post('l', { accountId: 'alice', text: 'sourdough bread baking', tags: ['bread'] });
  const events: ProfileInteraction[] = [
    { post: liked, action: 'favorite', createdAtMs: NOW - 2 * DAY },
    { post: post('m', { accountId: 'alice', tags: ['bread'] }), action: 'bookmark', createdAtMs: NOW - DAY },
  ];

  it('gives the same ranking whether built at once or applied one event at a time', () => {
    const index = new CandidateIndex([
      liked,
      post('p', { accountId: 'alice' }),
      post('q', { text: 'bread baking tips', tags: ['bread'] }),
      post('r'),
    ]);
    const whole = buildUserProfile({ userId: 'u', interactions: events }, index);
    const stepwise = emptyProfile('u');
    for (const e of events) applyInteraction(stepwise, e, index);
    const rank = (p: typeof whole): unknown => rankCandidates(index, p, DEFAULT_ALGORITHM_CONFIG, { limit: 10, nowMs: NOW });
    expect(rank(stepwise)).toEqual(rank(whole));
  });

  it('decays affinity with the documented half-life and undoes an interaction exactly', () => {
    const index = new CandidateIndex();
    const profile = buildUserProfile({ userId: 'u', interactions: events.slice(0, 1) }, index);
    const affinity = (at: number): number => learnedPreferences(profile, at).authors[0]?.affinity ?? 0;
    expect(affinity(NOW - 2 * DAY)).toBeCloseTo(1, 12);
    expect(affinity(NOW - 2 * DAY + AFFINITY_HALF_LIFE_DAYS * DAY)).toBeCloseTo(0.5, 12);
    applyInteraction(profile, events[1] as ProfileInteraction, index);
    expect(affinity(NOW - DAY)).toBeCloseTo(Math.pow(2, -1 / AFFINITY_HALF_LIFE_DAYS) + 1.5, 12);
    applyInteraction(profile, events[1] as ProfileInteraction, index, 'undo');
    expect(affinity(NOW - DAY)).toBeCloseTo(Math.pow(2, -1 / AFFINITY_HALF_LIFE_DAYS), 12);
    expect([...profile.seenPosts.keys()]).toEqual(['l']);
    expect(profile.signals).toBe(1);
  });
});
