/**
 * The optimised ranking pass (struct-of-arrays pool, precomputed recency, scratch arrays)
 * against a straightforward reference written here from the formulas of features.ts and
 * the rules of rank.ts, over random pools, profiles and requests: the same posts in the
 * same order, scores and features equal to 1e-9 (recency to 1e-12). A future optimisation
 * that changes a ranking fails here.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  authorPreferenceFeature,
  buildUserProfile,
  CandidateIndex,
  COLD_START_WEIGHTS,
  DEFAULT_PER_AUTHOR_CAP,
  DEFAULT_RECENCY_HALF_LIFE_HOURS,
  effectiveWeights,
  engagementLog,
  FAVOURED_AUTHOR_AFFINITY,
  FAVOURED_TAG_INTEREST,
  isColdStart,
  primaryLanguage,
  rankCandidates,
  recencyFeature,
  tagTerm,
  termCounts,
  type AlgorithmConfig,
  type RankablePost,
  type RankedItem,
  type RankingOptions,
  type UserPreferences,
  type UserProfile,
} from '../../../src/ranking/index.js';
import { decayedSnapshot } from '../../../src/ranking/profile.js';
import { MAX_VECTOR_TERMS } from '../../../src/ranking/vocabulary.js';
import { HOUR, NOW, post } from './fixtures.js';

// ---------------------------------------------------------------------------------------
// The reference: every pooled post scored from scratch, then sorted and walked.
// ---------------------------------------------------------------------------------------

interface Vector {
  readonly ids: ArrayLike<number>;
  readonly weights: ArrayLike<number>;
}

interface Expected {
  readonly id: string;
  readonly score: number;
  readonly features: RankedItem['features'];
}

/**
 * TF-IDF vectors of a pool weighed at once (smoothed idf ln((N+1)/(df+1)) + 1, the
 * MAX_VECTOR_TERMS strongest terms, ties to the smaller term id, L2-normalised).
 */
function freshVectors(index: CandidateIndex, pool: readonly RankablePost[]): Map<string, Vector> {
  const counts = new Map(pool.map((p) => [p.id, termCounts(p.text, p.tags)]));
  const df = new Map<string, number>();
  for (const c of counts.values()) for (const term of c.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const n = pool.length;
  const out = new Map<string, Vector>();
  for (const [id, c] of counts) {
    const weighed = [...c]
      .map(([term, tf]) => [index.vocabulary.find(term) ?? -1, tf * (Math.log((n + 1) / ((df.get(term) ?? 0) + 1)) + 1)] as const)
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, MAX_VECTOR_TERMS);
    const norm = Math.sqrt(weighed.reduce((sum, [, w]) => sum + w * w, 0));
    const inv = norm > 0 ? 1 / norm : 0;
    out.set(id, { ids: weighed.map(([t]) => t), weights: weighed.map(([, w]) => w * inv) });
  }
  return out;
}

/** Trend score per tag term: posts of the last 24 h carrying it over the top tag's, top 10 with at least 3 posts. */
function trendScores(pool: readonly RankablePost[], nowMs: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of pool) {
    if (p.createdAtMs < nowMs - 24 * HOUR || p.createdAtMs > nowMs) continue;
    for (const tag of new Set(p.tags)) counts.set(tagTerm(tag), (counts.get(tagTerm(tag)) ?? 0) + 1);
  }
  const top = [...counts]
    .filter(([, c]) => c >= 3)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, 10);
  const max = top[0]?.[1] ?? 1;
  return new Map(top.map(([term, c]) => [term, c / max]));
}

function reference(
  pool: readonly RankablePost[],
  vectors: ReadonlyMap<string, Vector>,
  vocabularyFind: (term: string) => number | undefined,
  profile: UserProfile,
  config: AlgorithmConfig,
  options: RankingOptions,
): Expected[] {
  const nowMs = options.nowMs;
  const halfLife = options.recencyHalfLifeHours ?? DEFAULT_RECENCY_HALF_LIFE_HOURS;
  const cold = isColdStart(profile);
  const weights = effectiveWeights(config);
  const prefs = profile.preferences;
  const snapshot = decayedSnapshot(profile, nowMs);
  const byId = new Map(pool.map((p) => [p.id, p]));

  // Author affinity (decayed sum, plus a constant per favoured author) -> author_preference.
  const affinity = new Map<string, number>();
  snapshot.authors.keys.forEach((key, i) => affinity.set(key, (affinity.get(key) ?? 0) + snapshot.authors.values[i]!));
  for (const a of prefs.favouredAuthors) affinity.set(a, (affinity.get(a) ?? 0) + FAVOURED_AUTHOR_AFFINITY);
  const blocked = new Set([...prefs.mutedAuthors, ...(profile.accountId === null ? [] : [profile.accountId])]);

  // Interest vector: learned terms plus favoured tags; its norm counts terms the pool lacks.
  const favoured = new Map<string, number>();
  for (const tag of prefs.favouredTags) favoured.set(tagTerm(tag), (favoured.get(tagTerm(tag)) ?? 0) + FAVOURED_TAG_INTEREST);
  const interest = new Map<number, number>();
  let norm2 = 0;
  const addInterest = (term: string, value: number): void => {
    norm2 += value * value;
    const id = vocabularyFind(term);
    if (id !== undefined) interest.set(id, value);
  };
  snapshot.interest.keys.forEach((term, i) => {
    const extra = favoured.get(term);
    favoured.delete(term);
    addInterest(term, snapshot.interest.values[i]! + (extra ?? 0));
  });
  for (const [term, value] of favoured) addInterest(term, value);
  const interestNorm = Math.sqrt(norm2);
  const mutedTerms = new Set(prefs.mutedTags.map(tagTerm));
  const languages = prefs.languages.length > 0 ? new Set(prefs.languages.map(primaryLanguage)) : null;

  // Excluded: seen and excluded posts with their whole reblog group.
  const excluded = new Set<string>();
  for (const id of [...profile.seenPosts.keys(), ...(options.excludeIds ?? [])]) {
    excluded.add(id);
    const original = byId.get(id)?.reblogOfId ?? id;
    excluded.add(original);
    for (const p of pool) if (p.reblogOfId === original) excluded.add(p.id);
  }

  const trend = trendScores(pool, nowMs);
  let maxEngagement = 0;
  for (const p of pool) maxEngagement = Math.max(maxEngagement, engagementLog(p));
  const invMax = maxEngagement > 0 ? 1 / maxEngagement : 0;

  const scored: (Expected & { post: RankablePost })[] = [];
  for (const p of pool) {
    if (excluded.has(p.id) || blocked.has(p.accountId)) continue;
    if (!prefs.includeReblogs && p.reblogOfId !== null) continue;
    if (!prefs.allowSensitive && p.sensitive) continue;
    if (languages !== null && p.language !== null && !languages.has(primaryLanguage(p.language))) continue;
    if (p.tags.some((t) => mutedTerms.has(tagTerm(t)))) continue;
    const vector = vectors.get(p.id)!;
    let dot = 0;
    for (let j = 0; j < vector.ids.length; j++) dot += vector.weights[j]! * (interest.get(vector.ids[j]!) ?? 0);
    const cosine = interestNorm === 0 ? 0 : Math.min(1, Math.max(0, dot / interestNorm));
    const features = {
      author_preference: cold ? 0.5 : affinity.has(p.accountId) ? authorPreferenceFeature(affinity.get(p.accountId)!) : 0.5,
      content_engagement: engagementLog(p) * invMax,
      recency: recencyFeature(nowMs - p.createdAtMs, halfLife),
      semantic_similarity: cold ? 0 : cosine,
      // Without a co-engagement state (as here) the collaborative feature is 0.
      collaborative: 0,
    };
    let total: number;
    if (cold) {
      const trending = Math.max(0, ...p.tags.map((t) => trend.get(tagTerm(t)) ?? 0));
      total =
        COLD_START_WEIGHTS.content_engagement * features.content_engagement +
        COLD_START_WEIGHTS.recency * features.recency +
        COLD_START_WEIGHTS.trending * trending;
    } else {
      total =
        weights.content_engagement * features.content_engagement +
        weights.recency * features.recency +
        weights.author_preference * features.author_preference;
      if (weights.semantic_similarity > 0 && interestNorm > 0) total += weights.semantic_similarity * cosine;
    }
    scored.push({ id: p.id, post: p, score: Math.min(1, Math.max(0, total)), features });
  }
  // Score descending, then newer, then the smaller id; then the diversity walk over the whole list.
  scored.sort((a, b) => b.score - a.score || b.post.createdAtMs - a.post.createdAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const limit = Math.max(0, Math.floor(options.limit));
  const cap = Math.max(1, Math.floor(options.perAuthorCap ?? DEFAULT_PER_AUTHOR_CAP));
  const groups = new Set<string>();
  const perAuthor = new Map<string, number>();
  const out: Expected[] = [];
  for (const s of scored) {
    if (out.length >= limit) break;
    const group = s.post.reblogOfId ?? s.id;
    const count = perAuthor.get(s.post.accountId) ?? 0;
    if (groups.has(group) || count >= cap) continue;
    groups.add(group);
    perAuthor.set(s.post.accountId, count + 1);
    out.push({ id: s.id, score: s.score, features: s.features });
  }
  // Still short: the posts skipped for their author's cap follow, in the same order.
  for (const s of scored) {
    if (out.length >= limit) break;
    const group = s.post.reblogOfId ?? s.id;
    if (groups.has(group)) continue;
    groups.add(group);
    out.push({ id: s.id, score: s.score, features: s.features });
  }
  return out;
}

function expectSame(actual: RankedItem[], expected: Expected[]): void {
  expect(actual.map((i) => i.post.id)).toEqual(expected.map((e) => e.id));
  actual.forEach((item, k) => {
    const e = expected[k]!;
    expect(Math.abs(item.score - e.score)).toBeLessThanOrEqual(1e-9);
    expect(Math.abs(item.features.recency - e.features.recency)).toBeLessThanOrEqual(1e-12);
    expect(Math.abs(item.features.author_preference - e.features.author_preference)).toBeLessThanOrEqual(1e-9);
    expect(Math.abs(item.features.content_engagement - e.features.content_engagement)).toBeLessThanOrEqual(1e-9);
    expect(Math.abs(item.features.semantic_similarity - e.features.semantic_similarity)).toBeLessThanOrEqual(1e-9);
  });
}

// ---------------------------------------------------------------------------------------
// Random pools, profiles and requests.
// ---------------------------------------------------------------------------------------

const WORDS = ['rust', 'bread', 'garden', 'music', 'football', 'cats', 'python', 'travel', 'coffee', 'compiler', 'sourdough', 'jazz'];
const TAGS = ['rust', 'cats', 'news', 'music', 'caturday', 'garden'];
const LANGUAGES = ['en', 'en-GB', 'EN', 'de', 'fr', null] as const;
const AUTHORS = 8;

interface PostSpec {
  author: number;
  words: string[];
  tags: string[];
  language: string | null;
  ageHours: number;
  favourites: number;
  reblogs: number;
  replies: number;
  reblogOf: number | undefined;
  sensitive: boolean;
}

const arbPostSpecBy = (author: fc.Arbitrary<number>): fc.Arbitrary<PostSpec> =>
  fc.record({
    author,
    words: fc.array(fc.constantFrom(...WORDS), { maxLength: 16 }),
    tags: fc.uniqueArray(fc.constantFrom(...TAGS), { maxLength: 3 }),
    language: fc.constantFrom(...LANGUAGES),
    // Mostly recent, a few from the future, some very old (the recency of those underflows).
    ageHours: fc.oneof(
      fc.double({ min: -3, max: 24 * 10, noNaN: true }),
      fc.integer({ min: -48, max: 24 * 90 }),
      fc.constantFrom(0, 24 * 365 * 3, -24 * 365),
    ),
    favourites: fc.oneof(fc.constant(0), fc.nat(1000)),
    reblogs: fc.nat(100),
    replies: fc.nat(30),
    reblogOf: fc.option(fc.nat(70), { nil: undefined }),
    // About one post in five is sensitive: ranked only for users who allow it.
    sensitive: fc.nat(4).map((n) => n === 0),
  });
const arbPostSpec = arbPostSpecBy(fc.integer({ min: 0, max: AUTHORS - 1 }));

function toPost(id: string, s: PostSpec, selfIndex: number): RankablePost {
  return post(id, {
    accountId: `acct${s.author}`,
    accountUsername: `user${s.author}`,
    text: s.words.join(' '),
    tags: s.tags,
    language: s.language,
    createdAtMs: NOW - s.ageHours * HOUR,
    favourites: s.favourites,
    reblogs: s.reblogs,
    replies: s.replies,
    reblogOfId: s.reblogOf === undefined || s.reblogOf === selfIndex ? null : `p${s.reblogOf}`,
    sensitive: s.sensitive,
  });
}

const arbPool = fc.array(arbPostSpec, { maxLength: 70 }).map((specs) => specs.map((s, i) => toPost(`p${i}`, s, i)));
// Larger pools, where the diversity walk looks deep: either two authors wrote nearly all
// posts (the walk, which takes a few posts per author, often widens) or many authors
// wrote a few each; in both most cosines are put off (their bound says they cannot matter).
const crowdedPool = (author: fc.Arbitrary<number>): fc.Arbitrary<RankablePost[]> =>
  fc.array(arbPostSpecBy(author), { minLength: 100, maxLength: 300 }).map((specs) => specs.map((s, i) => toPost(`p${i}`, s, i)));
// Two authors' fresh and engaging posts over many authors' old and quiet ones: past the
// first few, the walk takes quiet posts, which differ by their cosines, put off at first.
const arbLoudAndQuietPool = fc
  .tuple(
    fc.array(arbPostSpecBy(fc.integer({ min: 0, max: 1 })), { minLength: 60, maxLength: 200 }),
    fc.array(arbPostSpecBy(fc.integer({ min: 2, max: 30 })), { minLength: 20, maxLength: 100 }),
  )
  .map(([loud, quiet]) => [
    ...loud.map((s) => ({ ...s, ageHours: Math.abs(s.ageHours) % 24, favourites: 50 + s.favourites })),
    ...quiet.map((s) => ({ ...s, ageHours: 24 * 20 + (s.reblogs % 40) * 24, favourites: 0, reblogs: 0, replies: 0 })),
  ])
  .map((specs) => specs.map((s, i) => toPost(`p${i}`, s, i)));
const arbCrowdedPool = fc.oneof(
  crowdedPool(
    fc.oneof({ arbitrary: fc.integer({ min: 0, max: 1 }), weight: 19 }, { arbitrary: fc.integer({ min: 2, max: 30 }), weight: 1 }),
  ),
  crowdedPool(fc.integer({ min: 0, max: 24 })),
  arbLoudAndQuietPool,
);

interface ProfileSpec {
  own: number | undefined;
  interactions: { post: number; action: 'favorite' | 'bookmark' | 'reblog'; ageHours: number }[];
  feedback: { post: number; feedback: 'more' | 'less'; ageHours: number }[];
  preferences: Partial<UserPreferences>;
}

const arbAuthorIds = fc.uniqueArray(
  fc.integer({ min: 0, max: AUTHORS }).map((a) => `acct${a}`),
  { maxLength: 3 },
);
const arbProfileSpecWith = (minInteractions: number): fc.Arbitrary<ProfileSpec> =>
  fc.record({
    own: fc.option(fc.integer({ min: 0, max: AUTHORS - 1 }), { nil: undefined }),
    // Posts beyond the pool's ids are engaged posts that are not (or no longer) pooled.
    interactions: fc.array(
      fc.record({
        post: fc.nat(90),
        action: fc.constantFrom('favorite' as const, 'bookmark' as const, 'reblog' as const),
        ageHours: fc.double({ min: 0, max: 24 * 60, noNaN: true }),
      }),
      { minLength: minInteractions, maxLength: 12 },
    ),
    feedback: fc.array(
      fc.record({
        post: fc.nat(90),
        feedback: fc.constantFrom('more' as const, 'less' as const),
        ageHours: fc.double({ min: 0, max: 24 * 30, noNaN: true }),
      }),
      { maxLength: 3 },
    ),
    preferences: fc.record(
      {
        languages: fc.uniqueArray(fc.constantFrom('en', 'de', 'fr-CA', 'ja'), { maxLength: 2 }),
        mutedAuthors: arbAuthorIds,
        favouredAuthors: arbAuthorIds,
        mutedTags: fc.uniqueArray(fc.constantFrom('Cats', '#news', 'rust', 'unknown'), { maxLength: 2 }),
        favouredTags: fc.uniqueArray(fc.constantFrom('music', '#Garden', 'rust', 'nowhere'), { maxLength: 2 }),
        includeReblogs: fc.boolean(),
        allowSensitive: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
  });
const arbProfileSpec = arbProfileSpecWith(0);

function buildProfile(index: CandidateIndex, pool: readonly RankablePost[], spec: ProfileSpec, userId: string): UserProfile {
  const engaged = (i: number): RankablePost =>
    pool[i] ?? post(`gone${i}`, { accountId: `acct${i % (AUTHORS + 2)}`, text: `${WORDS[i % WORDS.length]!} old`, tags: [TAGS[i % 6]!] });
  return buildUserProfile(
    {
      userId,
      accountId: spec.own === undefined ? null : `acct${spec.own}`,
      interactions: spec.interactions.map((x) => ({ post: engaged(x.post), action: x.action, createdAtMs: NOW - x.ageHours * HOUR })),
      feedback: spec.feedback.map((x) => ({ post: engaged(x.post), feedback: x.feedback, createdAtMs: NOW - x.ageHours * HOUR })),
      preferences: spec.preferences,
    },
    index,
  );
}

const weight = fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constant(0));
const arbConfig: fc.Arbitrary<AlgorithmConfig> = fc.record(
  {
    weights: fc.record({ author_preference: weight, content_engagement: weight, recency: weight, semantic_similarity: weight }),
    use_semantic_scoring: fc.boolean(),
    semantic_weight: fc.double({ min: 0, max: 1, noNaN: true }),
  },
  { requiredKeys: ['weights'] },
);

interface RequestSpec {
  limit: number;
  perAuthorCap: number | undefined;
  halfLife: number | undefined;
  excluded: number[];
}

const arbRequest: fc.Arbitrary<RequestSpec> = fc.record({
  limit: fc.integer({ min: 1, max: 40 }),
  perAuthorCap: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
  halfLife: fc.option(fc.oneof(fc.double({ min: 0.5, max: 500, noNaN: true }), fc.constantFrom(1, 6, 24, 72)), { nil: undefined }),
  excluded: fc.array(fc.nat(80), { maxLength: 4 }),
});

// Hours from NOW at which each pool is ranked, an hour or more apart (the trend cache lasts a minute):
// the same instant, later the same day, weeks later (recency rebased) and before the posts.
const CLOCKS = [0, 7, 24 * 40, -24 * 20, 24 * 365 * 4];

function options(r: RequestSpec, nowMs: number): RankingOptions {
  return {
    limit: r.limit,
    nowMs,
    excludeIds: r.excluded.map((i) => `p${i}`),
    ...(r.perAuthorCap === undefined ? {} : { perAuthorCap: r.perAuthorCap }),
    ...(r.halfLife === undefined ? {} : { recencyHalfLifeHours: r.halfLife }),
  };
}

describe('rankCandidates against a reference implementation of the score', () => {
  it('gives the same posts, order, scores and features on random pools built at once', () => {
    fc.assert(
      fc.property(
        arbPool,
        fc.array(fc.tuple(arbProfileSpec, arbConfig, arbRequest), { minLength: 1, maxLength: 3 }),
        fc.subarray(CLOCKS, { minLength: 1 }),
        (pool, users, clocks) => {
          const index = new CandidateIndex(pool);
          const vectors = freshVectors(index, pool);
          const profiles = users.map(([spec], u) => buildProfile(index, pool, spec, `u${u}`));
          // Several users on one index, so a user's scratch must not leak into the next ranking.
          for (const hours of clocks) {
            users.forEach(([, config, request], u) => {
              const opts = options(request, NOW + hours * HOUR);
              const actual = rankCandidates(index, profiles[u]!, config, opts);
              expectSame(
                actual,
                reference(pool, vectors, (t) => index.vocabulary.find(t), profiles[u]!, config, opts),
              );
            });
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives the same on crowded pools, where the walk widens and most cosines are put off', () => {
    const crowdedRequest = fc.record({
      limit: fc.integer({ min: 1, max: 30 }),
      perAuthorCap: fc.option(fc.integer({ min: 1, max: 2 }), { nil: undefined }),
      halfLife: fc.constant(undefined),
      excluded: fc.array(fc.nat(300), { maxLength: 4 }),
    });
    const semanticConfig = fc.record({
      weights: fc.record({ author_preference: weight, content_engagement: weight, recency: weight, semantic_similarity: weight }),
      semantic_weight: fc.double({ min: 0.01, max: 0.3, noNaN: true }),
    });
    fc.assert(
      fc.property(
        arbCrowdedPool,
        fc.array(fc.tuple(arbProfileSpecWith(2), semanticConfig, crowdedRequest), { minLength: 1, maxLength: 3 }),
        (pool, users) => {
          const index = new CandidateIndex(pool);
          const vectors = freshVectors(index, pool);
          users.forEach(([spec, config, request], u) => {
            const profile = buildProfile(index, pool, spec, `u${u}`);
            const opts = options(request, NOW);
            const actual = rankCandidates(index, profile, config, opts);
            expectSame(
              actual,
              reference(pool, vectors, (t) => index.vocabulary.find(t), profile, config, opts),
            );
          });
        },
      ),
      { numRuns: 100 },
    );
  });

  it('gives the same after posts are added, replaced, removed and re-counted one at a time', () => {
    const arbOp = fc.oneof(
      fc.record({ kind: fc.constant('upsert' as const), target: fc.nat(90), spec: arbPostSpec }),
      fc.record({ kind: fc.constant('remove' as const), target: fc.nat(90) }),
      fc.record({
        kind: fc.constant('counts' as const),
        target: fc.nat(90),
        favourites: fc.nat(5000),
        reblogs: fc.nat(50),
        replies: fc.nat(10),
      }),
    );
    fc.assert(
      fc.property(
        arbPool,
        fc.array(arbOp, { maxLength: 60 }),
        fc.array(fc.tuple(arbProfileSpec, arbConfig, arbRequest), { minLength: 1, maxLength: 2 }),
        (initial, ops, users) => {
          const index = new CandidateIndex(initial);
          const model = new Map(initial.map((p) => [p.id, p]));
          for (const op of ops) {
            const id = `p${op.target}`;
            if (op.kind === 'upsert') {
              const p = toPost(id, op.spec, op.target);
              index.upsert(p);
              model.set(id, p);
            } else if (op.kind === 'remove') {
              expect(index.remove(id)).toBe(model.delete(id));
            } else {
              const counts = { favourites: op.favourites, reblogs: op.reblogs, replies: op.replies };
              const known = model.get(id);
              expect(index.updateCounts(id, counts)).toBe(known !== undefined);
              if (known !== undefined) model.set(id, { ...known, ...counts });
            }
          }
          const pool = [...model.values()];
          const profiles = users.map(([spec], u) => buildProfile(index, pool, spec, `u${u}`));
          users.forEach(([, config, request], u) => {
            const opts = options(request, NOW);
            const actual = rankCandidates(index, profiles[u]!, config, opts);
            // Vectors are re-weighed only once the idf drifted enough: read the pool's own
            // (as ranked: after the refresh the ranking may have done).
            const vectors = new Map(pool.map((p) => [p.id, index.slotOf(p.id)!.vector]));
            expectSame(
              actual,
              reference(pool, vectors, (t) => index.vocabulary.find(t), profiles[u]!, config, opts),
            );
          });
        },
      ),
      { numRuns: 200 },
    );
  });
});
