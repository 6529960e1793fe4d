import { describe, expect, it } from 'vitest';
import {
  buildUserProfile,
  CandidateIndex,
  emptyProfile,
  rankCandidates,
  setPreferences,
  type AlgorithmConfig,
  type RankablePost,
  type UserProfile,
} from '../../../src/ranking/index.js';
import { HOUR, NOW, post } from './fixtures.js';

const RECENCY: AlgorithmConfig = { weights: { author_preference: 0, content_engagement: 0, recency: 1, semantic_similarity: 0 } };

function rankIds(
  posts: RankablePost[],
  profile: UserProfile,
  options: { limit?: number; excludeIds?: string[]; perAuthorCap?: number } = {},
): string[] {
  const index = new CandidateIndex(posts);
  return rankCandidates(index, profile, RECENCY, { limit: 50, nowMs: NOW, ...options }).map((i) => i.post.id);
}

// A warm profile (one signal) so the configured weights apply rather than cold start.
function warm(index?: CandidateIndex): UserProfile {
  const seen = post('seen', { accountId: 'someone' });
  return buildUserProfile(
    { userId: 'u', accountId: 'me', interactions: [{ post: seen, action: 'favorite', createdAtMs: NOW }] },
    index ?? new CandidateIndex(),
  );
}

describe('candidate rules', () => {
  const base = [post('p1', { createdAtMs: NOW - HOUR }), post('p2', { createdAtMs: NOW - 2 * HOUR })];

  it("leaves out the user's own posts", () => {
    expect(rankIds([...base, post('mine', { accountId: 'me' })], warm())).toEqual(['p1', 'p2']);
  });

  it('leaves out posts the user already interacted with', () => {
    expect(rankIds([...base, post('seen')], warm())).toEqual(['p1', 'p2']);
  });

  it('leaves out muted authors and posts with muted tags', () => {
    const profile = warm();
    setPreferences(profile, { mutedAuthors: ['troll'], mutedTags: ['#Spoilers'] });
    const posts = [...base, post('t', { accountId: 'troll' }), post('s', { tags: ['spoilers', 'film'] })];
    expect(rankIds(posts, profile)).toEqual(['p1', 'p2']);
  });

  it('leaves out exclude_ids, together with reblogs of an excluded original', () => {
    const posts = [...base, post('orig', { createdAtMs: NOW - 3 * HOUR }), post('rb', { reblogOfId: 'orig', accountId: 'booster' })];
    expect(rankIds(posts, warm(), { excludeIds: ['p1', 'orig'] })).toEqual(['p2']);
  });

  it('leaves out reblogs when the user does not want them', () => {
    const profile = warm();
    setPreferences(profile, { includeReblogs: false });
    expect(rankIds([...base, post('rb', { reblogOfId: 'elsewhere', createdAtMs: NOW })], profile)).toEqual(['p1', 'p2']);
  });

  it('leaves out sensitive posts unless the user allows them', () => {
    const posts = [...base, post('cw', { sensitive: true, createdAtMs: NOW })];
    const profile = warm();
    expect(rankIds(posts, profile)).toEqual(['p1', 'p2']);
    setPreferences(profile, { allowSensitive: true });
    expect(rankIds(posts, profile)).toEqual(['cw', 'p1', 'p2']);
    setPreferences(profile, { allowSensitive: false });
    expect(rankIds(posts, profile)).toEqual(['p1', 'p2']);
    // A cold-start user (no history) has the same default: off.
    expect(rankIds(posts, emptyProfile('new'))).not.toContain('cw');
  });

  it('keeps a post sensitive through count updates, and follows a replacement that changes it', () => {
    const index = new CandidateIndex([...base, post('cw', { sensitive: true, createdAtMs: NOW })]);
    const rank = (profile: UserProfile): string[] =>
      rankCandidates(index, profile, RECENCY, { limit: 50, nowMs: NOW }).map((item) => item.post.id);
    const allowing = warm(index);
    setPreferences(allowing, { allowSensitive: true });
    index.updateCounts('cw', { favourites: 10, reblogs: 2, replies: 1 });
    expect(rank(warm(index))).toEqual(['p1', 'p2']);
    expect(rank(allowing)).toEqual(['cw', 'p1', 'p2']);
    // A replacement carries its own flag (an edit that adds or removes a content warning).
    index.upsert(post('p2', { sensitive: true, createdAtMs: NOW - 2 * HOUR }));
    index.upsert(post('cw', { sensitive: false, createdAtMs: NOW }));
    expect(rank(warm(index))).toEqual(['cw', 'p1']);
  });

  it('keeps only the chosen languages, matching subtags, and lets unknown languages through', () => {
    const profile = warm();
    setPreferences(profile, { languages: ['en'] });
    const posts = [
      post('de', { language: 'de', createdAtMs: NOW }),
      post('gb', { language: 'en-GB', createdAtMs: NOW - HOUR }),
      post('none', { language: null, createdAtMs: NOW - 2 * HOUR }),
    ];
    expect(rankIds(posts, profile)).toEqual(['gb', 'none']);
  });

  it('counts a reblog and its original as one post, keeping the higher scoring', () => {
    const posts = [
      post('orig', { createdAtMs: NOW - 5 * HOUR }),
      post('rb', { reblogOfId: 'orig', accountId: 'booster', createdAtMs: NOW - HOUR }),
    ];
    expect(rankIds(posts, warm())).toEqual(['rb']);
    const older = [
      post('orig', { createdAtMs: NOW - HOUR }),
      post('rb', { reblogOfId: 'orig', accountId: 'booster', createdAtMs: NOW - 5 * HOUR }),
    ];
    expect(rankIds(older, warm())).toEqual(['orig']);
  });

  it('caps the posts per author and fills the list from the next authors', () => {
    const prolific = Array.from({ length: 10 }, (_, i) => post(`bob${i}`, { accountId: 'bob', createdAtMs: NOW - i * 60_000 }));
    const others = Array.from({ length: 5 }, (_, i) => post(`o${i}`, { createdAtMs: NOW - (HOUR + i * 60_000) }));
    const bobs = (ids: string[]): number => ids.filter((id) => id.startsWith('bob')).length;
    const byDefault = rankIds([...prolific, ...others], warm(), { limit: 6 });
    expect(byDefault).toEqual(['bob0', 'bob1', 'bob2', 'o0', 'o1', 'o2']);
    expect(bobs(rankIds([...prolific, ...others], warm(), { limit: 6, perAuthorCap: 1 }))).toBe(1);
    expect(rankIds([...prolific, ...others], warm(), { limit: 6, perAuthorCap: 1 })).toEqual(['bob0', 'o0', 'o1', 'o2', 'o3', 'o4']);
  });

  it('fills a list the cap would leave short with the capped authors’ posts, in score order', () => {
    const prolific = Array.from({ length: 10 }, (_, i) => post(`bob${i}`, { accountId: 'bob', createdAtMs: NOW - i * 60_000 }));
    const others = Array.from({ length: 2 }, (_, i) => post(`o${i}`, { createdAtMs: NOW - (HOUR + i * 60_000) }));
    // Three of bob's, both others', then bob's next best: never fewer than the pool allows.
    expect(rankIds([...prolific, ...others], warm(), { limit: 8 })).toEqual(['bob0', 'bob1', 'bob2', 'o0', 'o1', 'bob3', 'bob4', 'bob5']);
    expect(rankIds([...prolific, ...others], warm(), { limit: 20, perAuthorCap: 1 })).toHaveLength(12);
    // One account's catalogue: the whole list, as without a cap.
    expect(rankIds(prolific, warm(), { limit: 5 })).toEqual(rankIds(prolific, warm(), { limit: 5, perAuthorCap: 20 }));
    expect(rankIds(prolific, warm(), { limit: 5 })).toHaveLength(5);
  });

  it('returns nothing for an empty pool or a zero limit', () => {
    expect(rankCandidates(new CandidateIndex(), emptyProfile('u'), RECENCY, { limit: 10, nowMs: NOW })).toEqual([]);
    expect(rankIds(base, warm(), { limit: 0 })).toEqual([]);
  });
});
