/**
 * A seeded ranking scenario (pool, users' histories, four-weight configs) shared by the
 * golden-file generator (test/fixtures/ranking/generate-four-weight-golden.ts) and the
 * invariance test (four-weight-invariance.test.ts). Frozen: changing it invalidates the
 * golden file, which was written by the code from before the collaborative feature.
 */
import { createRandom, randomInt } from '../../../src/random.js';
import {
  buildUserProfile,
  CandidateIndex,
  rankCandidates,
  type AlgorithmConfig,
  type InteractionAction,
  type RankablePost,
  type RankedItem,
  type RankingOptions,
  type UserProfile,
} from '../../../src/ranking/index.js';
import { HOUR, NOW, post } from './fixtures.js';

const WORDS = ['rust', 'garden', 'coffee', 'linux', 'music', 'jazz', 'climbing', 'bread', 'cats', 'vim', 'kernel', 'tea', 'films', 'maps'];
const TAGS = ['rust', 'gardening', 'music', 'linux', 'photography', 'cats', 'food'];
const ACTIONS: readonly InteractionAction[] = ['favorite', 'reblog', 'bookmark'];

/** 400 posts by 40 authors over ten days, a few reblogs, some sensitive. */
export function scenarioPosts(): RankablePost[] {
  const random = createRandom(20261127);
  const posts: RankablePost[] = [];
  for (let i = 0; i < 400; i++) {
    const words = Array.from({ length: 3 + randomInt(random, 8) }, () => WORDS[randomInt(random, WORDS.length)]!);
    const tags = Array.from({ length: randomInt(random, 3) }, () => TAGS[randomInt(random, TAGS.length)]!);
    const author = randomInt(random, 40);
    const reblogOf = i > 20 && random() < 0.05 ? `p${randomInt(random, i)}` : null;
    posts.push(
      post(`p${String(i).padStart(4, '0')}`, {
        accountId: `a${author}`,
        accountUsername: `author${author}`,
        text: words.join(' '),
        tags,
        language: random() < 0.9 ? 'en' : 'de',
        createdAtMs: NOW - Math.floor(random() * 240 * HOUR),
        favourites: randomInt(random, 50),
        reblogs: randomInt(random, 10),
        replies: randomInt(random, 5),
        reblogOfId: reblogOf === null ? null : `p${reblogOf.slice(1).padStart(4, '0')}`,
        sensitive: random() < 0.05,
      }),
    );
  }
  return posts;
}

/** 16 users: the first three without history, the others with 1 to 25 interactions. */
export function scenarioProfiles(index: CandidateIndex, posts: readonly RankablePost[]): UserProfile[] {
  const random = createRandom(7);
  return Array.from({ length: 16 }, (_, u) => {
    const count = u < 3 ? 0 : 1 + randomInt(random, 25);
    const interactions = Array.from({ length: count }, (_, k) => ({
      post: posts[randomInt(random, posts.length)]!,
      action: ACTIONS[randomInt(random, ACTIONS.length)]!,
      createdAtMs: NOW - (count - k) * HOUR,
    }));
    return buildUserProfile({ userId: `u${u}`, accountId: `a${u}`, interactions }, index);
  });
}

/** Four-weight configs, as experiments created before the fifth weight hold them. */
export const SCENARIO_CONFIGS: Readonly<Record<string, AlgorithmConfig>> = {
  spec_default: {
    weights: { author_preference: 0.35, content_engagement: 0.25, recency: 0.25, semantic_similarity: 0.15 },
    use_semantic_scoring: true,
  },
  semantic_heavy: { weights: { author_preference: 0.1, content_engagement: 0.1, recency: 0.1, semantic_similarity: 0.7 } },
  no_semantic: {
    weights: { author_preference: 0.4, content_engagement: 0.3, recency: 0.3, semantic_similarity: 0 },
    use_semantic_scoring: false,
  },
  semantic_override: {
    weights: { author_preference: 0.5, content_engagement: 0.25, recency: 0.25, semantic_similarity: 0 },
    semantic_weight: 0.3,
  },
};

/** One ranked list as the golden file stores it: every number as its exact decimal (`String(x)` round-trips). */
export interface GoldenItem {
  id: string;
  score: string;
  /** The semantic feature (the one computed apart from the score's pass). */
  semantic: string;
  reason: string;
}

/** Every user's list under every config, keyed `<config>/<user>`. */
export function scenarioRankings(
  index: CandidateIndex,
  profiles: readonly UserProfile[],
  extra: Partial<RankingOptions> = {},
): Record<string, GoldenItem[]> {
  const out: Record<string, GoldenItem[]> = {};
  for (const [name, config] of Object.entries(SCENARIO_CONFIGS)) {
    for (const profile of profiles) {
      const items = rankCandidates(index, profile, config, { limit: 20, nowMs: NOW, ...extra });
      out[`${name}/${profile.userId}`] = items.map(golden);
    }
  }
  return out;
}

function golden(item: RankedItem): GoldenItem {
  return { id: item.post.id, score: String(item.score), semantic: String(item.features.semantic_similarity), reason: item.reasonCode };
}

/** The scenario's pool and profiles. */
export function scenario(): { posts: RankablePost[]; index: CandidateIndex; profiles: UserProfile[] } {
  const posts = scenarioPosts();
  const index = new CandidateIndex(posts);
  return { posts, index, profiles: scenarioProfiles(index, posts) };
}
