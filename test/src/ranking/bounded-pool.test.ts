import { describe, expect, it } from 'vitest';
import { CandidateIndex, DEFAULT_ALGORITHM_CONFIG, emptyProfile, rankCandidates } from '../../../src/ranking/index.js';
import { NOW, post } from './fixtures.js';

describe('CandidateIndex memory stays bounded by the posts it holds', () => {
  it('frees the terms and authors of posts that left the pool and reuses their ids', () => {
    const index = new CandidateIndex([], { maxRecent: 20, maxPopular: 0 });
    // 2,000 posts with their own words and authors pass through a pool of about 20.
    for (let i = 0; i < 2000; i++) {
      index.upsert(
        post(`p${i}`, { accountId: `author${i}`, text: `word${i}a word${i}b`, tags: [`tag${i}`], createdAtMs: NOW - (2000 - i) * 1000 }),
      );
    }
    expect(index.size).toBeLessThanOrEqual(22);
    // Before, every term and author ever seen kept an id (6,000 terms, 2,000 authors).
    expect(index.vocabulary.size).toBeLessThan(200);
    expect(index.vocabulary.liveTerms).toBeLessThanOrEqual(22 * 3);
    expect(index.authorCapacity).toBeLessThan(100);
    expect(index.vocabulary.find('word0a')).toBeUndefined();
    expect(index.vocabulary.find('word1999a')).toBeDefined();
    expect(index.authorIndex.has('author0')).toBe(false);
  });

  it('ranks the same after ids were reused as a fresh index holding the same posts', () => {
    const churned = new CandidateIndex([], { maxRecent: 10, maxPopular: 0 });
    for (let i = 0; i < 300; i++)
      churned.upsert(post(`p${i}`, { accountId: `a${i % 37}`, text: `topic${i % 53} words${i}`, createdAtMs: NOW - (300 - i) * 60_000 }));
    const kept = churned.slots.flatMap((s) => (s === undefined ? [] : [s.post]));
    const fresh = new CandidateIndex(kept, { maxRecent: 10, maxPopular: 0 });
    const profile = emptyProfile('u');
    profile.preferences = { ...profile.preferences, favouredAuthors: ['a5'], favouredTags: [] };
    const ids = (index: CandidateIndex): string[] =>
      rankCandidates(index, profile, DEFAULT_ALGORITHM_CONFIG, { limit: 10, nowMs: NOW }).map((item) => item.post.id);
    expect(ids(churned)).toEqual(ids(fresh));
  });
});
