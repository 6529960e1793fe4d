/**
 * The collaborative feature in the ranking: weighed by `collaborative`, it lifts posts
 * co-engaged with the user's recent posts, names its reason, and brings collaborative
 * candidates from outside the pool to the users they match, and to no one else.
 */
import { describe, expect, it } from 'vitest';
import {
  buildUserProfile,
  CandidateIndex,
  CoEngagement,
  rankCandidates,
  type AlgorithmConfig,
  type RankablePost,
} from '../../../src/ranking/index.js';
import { localiseReasonText } from '../../../src/ranking/reason-text.js';
import { HOUR, NOW, post } from './fixtures.js';

const COLLABORATIVE: AlgorithmConfig = {
  weights: { author_preference: 0.1, content_engagement: 0.1, recency: 0.1, semantic_similarity: 0.1, collaborative: 0.6 },
};

function setting(): { index: CandidateIndex; posts: RankablePost[]; state: CoEngagement } {
  const posts = [
    post('liked', { accountId: 'ana', accountUsername: 'ana', tags: ['rust'], text: 'borrow checker tips' }),
    ...Array.from({ length: 30 }, (_, i) => post(`p${i}`, { accountId: `a${i}`, favourites: 10 + i, createdAtMs: NOW - i * HOUR })),
    post('coliked', { accountId: 'bob', accountUsername: 'bob', tags: ['rust'], createdAtMs: NOW - 100 * HOUR }),
  ];
  const state = new CoEngagement();
  // Five users liked both `liked` and `coliked`; `old` (outside the pool) too.
  for (let u = 0; u < 5; u++) state.record('coliked', ['liked'], 1);
  for (let u = 0; u < 3; u++) state.record('old', ['liked'], 1);
  return { index: new CandidateIndex(posts), posts, state };
}

describe('the collaborative feature', () => {
  it("ranks a co-engaged post first, saying why: liked by people who liked @ana's post about #rust", () => {
    const { index, posts, state } = setting();
    const profile = buildUserProfile(
      { userId: 'u', interactions: [{ post: posts[0]!, action: 'favorite', createdAtMs: NOW - HOUR }] },
      index,
    );
    expect(profile.recentPosts).toEqual(['liked']);
    const [first] = rankCandidates(index, profile, COLLABORATIVE, { limit: 5, nowMs: NOW, coEngagement: state });
    expect(first?.post.id).toBe('coliked');
    expect(first?.features.collaborative).toBe(1);
    expect(first?.reasonCode).toBe('COLLABORATIVE');
    expect(first?.reasonText).toBe("Liked by people who liked @ana's post about #rust");
    expect(localiseReasonText(first!.reasonText, 'de')).toBe('Gefällt Leuten, denen der Beitrag von @ana über #rust gefallen hat');
  });

  it('is 0 without the weight, without the state, or without recent posts', () => {
    const { index, posts, state } = setting();
    const profile = buildUserProfile(
      { userId: 'u', interactions: [{ post: posts[0]!, action: 'favorite', createdAtMs: NOW - HOUR }] },
      index,
    );
    const four: AlgorithmConfig = {
      weights: { author_preference: 0.25, content_engagement: 0.25, recency: 0.25, semantic_similarity: 0.25 },
    };
    for (const items of [
      rankCandidates(index, profile, four, { limit: 40, nowMs: NOW, coEngagement: state }),
      rankCandidates(index, profile, COLLABORATIVE, { limit: 40, nowMs: NOW }),
      rankCandidates(index, { ...profile, recentPosts: [] }, COLLABORATIVE, { limit: 40, nowMs: NOW, coEngagement: state }),
    ]) {
      expect(items.every((i) => i.features.collaborative === 0 && i.reasonCode !== 'COLLABORATIVE')).toBe(true);
    }
  });

  it('ranks a collaborative candidate from outside the pool for the users it matches only', () => {
    const { index, posts, state } = setting();
    index.addCollaborative([post('old', { accountId: 'carol', accountUsername: 'carol', createdAtMs: NOW - 2000 * HOUR })]);
    expect(index.size).toBe(posts.length);
    const matched = buildUserProfile(
      { userId: 'u', interactions: [{ post: posts[0]!, action: 'favorite', createdAtMs: NOW - HOUR }] },
      index,
    );
    const other = buildUserProfile(
      { userId: 'v', interactions: [{ post: posts[5]!, action: 'favorite', createdAtMs: NOW - HOUR }] },
      index,
    );
    const ids = (profile: typeof matched): string[] =>
      rankCandidates(index, profile, COLLABORATIVE, { limit: 40, nowMs: NOW, coEngagement: state }).map((i) => i.post.id);
    expect(ids(matched).slice(0, 2)).toEqual(['coliked', 'old']);
    expect(ids(other)).not.toContain('old');
  });

  it('holds at most maxCollaborative candidates, the least recently asked for dropped', () => {
    const index = new CandidateIndex([post('a')], { maxCollaborative: 2 });
    index.addCollaborative([post('x'), post('y')]);
    index.addCollaborative([post('x')]);
    index.addCollaborative([post('z')]);
    expect(index.collaborativeSize).toBe(2);
    expect(index.has('x') && index.has('z') && !index.has('y')).toBe(true);
    // A pool post stored later replaces its candidate slot.
    index.upsert(post('x', { favourites: 3 }));
    expect(index.collaborativeSize).toBe(1);
    expect(index.size).toBe(2);
  });
});
