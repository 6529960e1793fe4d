import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildUserProfile, CandidateIndex, rankCandidates, type AlgorithmConfig, type RankablePost } from '../../../src/ranking/index.js';
import { selectTopK } from '../../../src/ranking/top-k.js';
import { HOUR, NOW, post } from './fixtures.js';

const WORDS = ['rust', 'bread', 'garden', 'music', 'football', 'cats', 'python', 'travel'];

const arbPost = (id: number): fc.Arbitrary<RankablePost> =>
  fc
    .record({
      author: fc.integer({ min: 0, max: 6 }),
      words: fc.array(fc.constantFrom(...WORDS), { maxLength: 6 }),
      tags: fc.array(fc.constantFrom('rust', 'cats', 'news'), { maxLength: 2 }),
      ageHours: fc.double({ min: -2, max: 24 * 30, noNaN: true }),
      favourites: fc.nat(1000),
      reblogs: fc.nat(200),
      replies: fc.nat(50),
      reblogOf: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
    })
    .map((r) =>
      post(String(id), {
        accountId: `acct${r.author}`,
        text: r.words.join(' '),
        tags: r.tags,
        createdAtMs: NOW - r.ageHours * HOUR,
        favourites: r.favourites,
        reblogs: r.reblogs,
        replies: r.replies,
        reblogOfId: r.reblogOf === undefined || r.reblogOf === id ? null : String(r.reblogOf),
      }),
    );

const arbPosts = fc.integer({ min: 0, max: 40 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => arbPost(i))));
const weight = fc.double({ min: 0, max: 1, noNaN: true });
// use_semantic_scoring is absent, true or false.
const arbConfig: fc.Arbitrary<AlgorithmConfig> = fc.record(
  {
    weights: fc.record({ author_preference: weight, content_engagement: weight, recency: weight, semantic_similarity: weight }),
    use_semantic_scoring: fc.boolean(),
  },
  { requiredKeys: ['weights'] },
);

describe('ranking invariants', () => {
  it('returns at most limit distinct posts, scored in [0, 1]: the capped walk sorted, then what the cap held back, sorted', () => {
    fc.assert(
      fc.property(
        arbPosts,
        arbConfig,
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 4 }),
        fc.nat(5),
        (posts, config, limit, cap, likes) => {
          const index = new CandidateIndex(posts);
          const interactions = posts.slice(0, likes).map((p) => ({ post: p, action: 'favorite' as const, createdAtMs: NOW - HOUR }));
          const profile = buildUserProfile({ userId: 'u', accountId: 'acct0', interactions }, index);
          const items = rankCandidates(index, profile, config, { limit, nowMs: NOW, perAuthorCap: cap });
          expect(items.length).toBeLessThanOrEqual(limit);
          const groups = new Set(items.map((i) => i.post.reblogOfId ?? i.post.id));
          expect(groups.size).toBe(items.length);
          // The cap never shortens a list: as long as the uncapped one.
          const uncapped = rankCandidates(index, profile, config, { limit, nowMs: NOW, perAuthorCap: posts.length + 1 });
          expect(items.length).toBe(uncapped.length);
          const perAuthor = new Map<string, number>();
          let fill = -1;
          items.forEach((item, k) => {
            expect(item.score).toBeGreaterThanOrEqual(0);
            expect(item.score).toBeLessThanOrEqual(1);
            for (const f of Object.values(item.features)) expect(f >= 0 && f <= 1).toBe(true);
            expect(item.post.accountId).not.toBe('acct0');
            expect(profile.seenPosts.has(item.post.id)).toBe(false);
            const count = (perAuthor.get(item.post.accountId) ?? 0) + 1;
            perAuthor.set(item.post.accountId, count);
            if (fill < 0 && count > cap) fill = k;
            // Sorted within the capped walk, and within the fill after it; every post of the fill past its author's cap.
            if (k > 0 && k !== fill) expect(item.score).toBeLessThanOrEqual(items[k - 1]?.score ?? 1);
            if (fill >= 0) expect(count).toBeGreaterThan(cap);
          });
          if (fill >= 0) {
            // Past the cap only once every other author's eligible post is listed.
            const listed = new Set(items.map((i) => i.post.id));
            const all = rankCandidates(index, profile, config, { limit: posts.length + 1, nowMs: NOW, perAuthorCap: posts.length + 1 });
            const atCap = new Set([...perAuthor].filter(([, count]) => count >= cap).map(([a]) => a));
            for (const other of all) if (!atCap.has(other.post.accountId)) expect(listed.has(other.post.id)).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('selects the same top k as a full sort', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant(-1), fc.constantFrom(0, 0.5, 1), fc.double({ min: 0, max: 1, noNaN: true }))),
        fc.nat(30),
        (raw, k) => {
          const scores = Float64Array.from(raw);
          const createdAt = Float64Array.from(raw, (_, i) => i % 3);
          const before = (a: number, b: number): number =>
            (scores[b] ?? 0) - (scores[a] ?? 0) || (createdAt[b] ?? 0) - (createdAt[a] ?? 0) || a - b;
          const sorted = raw
            .map((_, i) => i)
            .filter((i) => (scores[i] ?? -1) >= 0)
            .sort(before);
          expect(selectTopK({ scores, createdAt, n: raw.length, tieBreak: (a, b) => a - b }, k)).toEqual(sorted.slice(0, k));
        },
      ),
    );
  });
});
