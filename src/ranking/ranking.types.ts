/**
 * Types and defaults of the ranking engine. The engine is pure: the server hands it
 * posts, interactions and preferences, and it never reads a database or the network.
 */
// Weights, algorithm_config, reason codes and interaction actions are wire vocabulary, declared once (experiment.schema.ts, src/schemas).
import type { AlgorithmConfig, Weights } from '../experiments/experiment.schema.js';
import type { InteractionAction } from '../schemas/interaction.schema.js';
import type { ReasonCode } from '../schemas/recommendation.schema.js';
import type { CoEngagementReader } from './co-engagement.js';

export type { AlgorithmConfig, InteractionAction, ReasonCode, Weights };

/** A post as the ranking engine sees it: plain text, lowercase tags, counts. */
export interface RankablePost {
  readonly id: string;
  readonly accountId: string;
  readonly accountUsername: string;
  /** Plain text: the caller strips the HTML (see `htmlToText`). */
  readonly text: string;
  /** Lowercase, without the leading `#`. */
  readonly tags: readonly string[];
  readonly language: string | null;
  readonly createdAtMs: number;
  readonly favourites: number;
  readonly reblogs: number;
  readonly replies: number;
  /** Set when this post is a reblog: the id of the original (they count as one post). */
  readonly reblogOfId: string | null;
  /** Marked sensitive (for a reblog: the original is): ranked only for users who allow it. */
  readonly sensitive: boolean;
}

/** The names of the features, in a fixed order (also the order of `FeatureVector`). */
export type FeatureName = keyof Weights;

/** One value in [0, 1] per feature (`collaborative` included: 0 when not weighed). */
export type FeatureVector = { [K in FeatureName]-?: number };

/**
 * The ranking used when no experiment applies. Author affinity leads because it is the
 * strongest personal signal; engagement and recency share the middle; the semantic
 * match is a tie-breaker among otherwise similar posts.
 */
export const DEFAULT_ALGORITHM_CONFIG: AlgorithmConfig = {
  weights: {
    author_preference: 0.35,
    content_engagement: 0.25,
    recency: 0.25,
    semantic_similarity: 0.15,
  },
  use_semantic_scoring: true,
};

/** Per-request knobs of one ranking. */
export interface RankingOptions {
  /** Maximum number of items returned. */
  readonly limit: number;
  /** The clock, in epoch milliseconds (passed in so that ranking is deterministic). */
  readonly nowMs: number;
  /** At most this many posts by one author in one list (default `DEFAULT_PER_AUTHOR_CAP`). */
  readonly perAuthorCap?: number;
  /** Half-life of the recency feature in hours (default `DEFAULT_RECENCY_HALF_LIFE_HOURS`). */
  readonly recencyHalfLifeHours?: number;
  /** Post ids to leave out (the client has them already); a reblog's group goes with it. */
  readonly excludeIds?: Iterable<string>;
  /**
   * The co-engagement state the collaborative feature reads (./co-engagement.ts); without
   * it, or with a collaborative weight of 0, the feature is 0 and ranks nothing.
   */
  readonly coEngagement?: CoEngagementReader;
}

/** Three posts per author keeps one prolific account from filling a 20-item list. */
export const DEFAULT_PER_AUTHOR_CAP = 3;

/** A day: a post loses half its recency score every 24 hours. */
export const DEFAULT_RECENCY_HALF_LIFE_HOURS = 24;

/** One ranked post, with the numbers behind its score and the reason shown to the user. */
export interface RankedItem {
  readonly post: RankablePost;
  /** Σ weight·feature, in [0, 1]. */
  readonly score: number;
  readonly features: FeatureVector;
  readonly reasonCode: ReasonCode;
  readonly reasonText: string;
  /** True when the user had no history and the cold-start ranking was used. */
  readonly coldStart: boolean;
}

/** What a profile learns from a post: its author, tags and words. */
export type EngagedPost = Pick<RankablePost, 'id' | 'accountId' | 'tags' | 'text'>;

/** One logged interaction, with the post it was about. */
export interface ProfileInteraction {
  readonly post: EngagedPost;
  readonly action: InteractionAction;
  readonly createdAtMs: number;
}

/** One "more / less of this kind of post" answer. */
export interface ProfileFeedback {
  readonly post: EngagedPost;
  readonly feedback: 'more' | 'less';
  readonly createdAtMs: number;
}

/** The user's explicit preferences (the preferences endpoint). */
export interface UserPreferences {
  readonly favouredAuthors: readonly string[];
  readonly mutedAuthors: readonly string[];
  /** Lowercase tags without `#`. */
  readonly favouredTags: readonly string[];
  readonly mutedTags: readonly string[];
  /** Language codes; empty means every language. Posts without a language always pass. */
  readonly languages: readonly string[];
  readonly includeReblogs: boolean;
  /** Sensitive posts may be recommended (off unless the user turns it on). */
  readonly allowSensitive: boolean;
}

/** No explicit preference: everything allowed, nothing favoured. */
export const DEFAULT_PREFERENCES: UserPreferences = {
  favouredAuthors: [],
  mutedAuthors: [],
  favouredTags: [],
  mutedTags: [],
  languages: [],
  includeReblogs: true,
  allowSensitive: false,
};

/** A post's public counters, as the ranking reads them. */
export type PostCounts = Pick<RankablePost, 'favourites' | 'reblogs' | 'replies'>;

/** A signal's contribution to the interest vector: (term, amount × TF-IDF weight) pairs. */
export type InterestTerms = readonly (readonly [string, number])[];

/** A change to one user's signals, as data (it may travel between instances). */
export type UserSignal =
  | {
      readonly kind: 'interaction';
      readonly interaction: ProfileInteraction;
      readonly undo?: boolean;
      /** The interest terms the writer stored (see `interestTerms`); recomputed when absent. */
      readonly terms?: InterestTerms;
    }
  | { readonly kind: 'feedback'; readonly feedback: ProfileFeedback; readonly terms?: InterestTerms }
  | { readonly kind: 'preferences'; readonly preferences: Partial<UserPreferences> };

/** A stored, time-decayed affinity of a user to an author or a tag: `score` as of `asOfMs`. */
export interface StoredAffinity {
  readonly kind: 'author' | 'tag';
  readonly target: string;
  readonly score: number;
  readonly asOfMs: number;
}
