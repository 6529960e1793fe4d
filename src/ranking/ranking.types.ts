/**
 * Types and defaults of the ranking engine. The engine is pure: the server hands it
 * posts, interactions and preferences, and it never reads a database or the network.
 */
// Weights, algorithm_config, reason codes and interaction actions are wire vocabulary, declared once (experiment.schema.ts, src/schemas).
import type { AlgorithmConfig, Weights } from '../experiments/experiment.schema.js';
import type { InteractionAction } from '../schemas/interaction.schema.js';
import type { ReasonCode } from '../schemas/recommendation.schema.js';
import type { CoEngagementReader } from './co-engagement.js';
import type { CollaborativeMatch } from './collaborative.js';

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
  /**
   * Users who bookmarked it (recsvc's own counter; absent: 0). Not in the engagement score
   * (ENGAGEMENT_WEIGHTS): only the positives count of the shipped cold start reads it.
   */
  readonly bookmarks?: number;
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
 * The ranking used when no experiment applies, chosen by offline evaluation (`recsvc eval`,
 * bench/README.md "Ranking quality") on both kinds of community, a fast feed and a slow
 * catalogue, with SHIPPED_RANKING_OPTIONS. Engagement and recency lead: on a feed they are
 * most of what predicts the next engagement, and on a catalogue recency is about 0 for every
 * post older than a few half-lives (almost all of them), so its weight costs little there.
 * Author affinity and the semantic match personalise on top. The previous default (0.35
 * author, 0.25 engagement, 0.25 recency, 0.15 semantic, 24-hour recency, the cold start 0.5
 * engagement, 0.3 recency, 0.2 trending tags) lost to the "hot" formula on a feed, for users
 * with history and without.
 */
export const DEFAULT_ALGORITHM_CONFIG: AlgorithmConfig = {
  weights: {
    author_preference: 0.2,
    content_engagement: 0.35,
    recency: 0.35,
    semantic_similarity: 0.1,
  },
  use_semantic_scoring: true,
};

/** How the cold-start ranking mixes its signals (summing to 1). */
export interface ColdStartWeights {
  readonly content_engagement: number;
  readonly recency: number;
  /** How strongly the post's tags trend. */
  readonly trending: number;
}

/** How engagement is counted (RankingOptions.engagementHalfLife). */
export type EngagementHalfLife = 'all-time' | 'pace' | number;

/** The engagement measures the cold start may read (RankingOptions.coldStartEngagement). */
export type ColdStartEngagement = 'weighted' | 'positives' | 'hot';

/** Per-request knobs of one ranking. */
export interface RankingOptions {
  /** Maximum number of items returned. */
  readonly limit: number;
  /** The clock, in epoch milliseconds (passed in so that ranking is deterministic). */
  readonly nowMs: number;
  /**
   * At most this many posts by one author in one list while other authors have posts left
   * (default `DEFAULT_PER_AUTHOR_CAP`); the posts it held back then fill a list still short.
   */
  readonly perAuthorCap?: number;
  /** Half-life of the recency feature in hours (default `DEFAULT_RECENCY_HALF_LIFE_HOURS`). */
  readonly recencyHalfLifeHours?: number;
  /** The cold-start mix (default `COLD_START_WEIGHTS`). */
  readonly coldStartWeights?: ColdStartWeights;
  /**
   * What the cold start reads (default `weighted`, the engine's: experiments rank with it):
   * - `weighted`: the `content_engagement` feature (a reblog counts twice, bookmarks not at
   *   all: ENGAGEMENT_WEIGHTS) and the recency of every post;
   * - `positives`: each positive interaction counted once, bookmarks included (`positivesLog`,
   *   normalised by its own maximum over the pool), and recency only for posts with at least
   *   one positive: a post nobody engaged with yet scores 0, as it does by popularity and by
   *   "hot". On the synthetic catalogue this ranks newcomers exactly as popularity does (the
   *   brand-new unengaged posts recency lifted were the whole gap), and on the feed as the
   *   weighted mix did, above "hot" (bench/README.md, "Ranking quality");
   * - `hot`: "hot" itself (`hotScore`: all-time positives / (age in hours + 2)^1.8, normalised by
   *   the pool's maximum) is the whole score; `coldStartWeights` are not read. A shape the fit
   *   may choose where a community's newcomers follow it (`cold_start_recency: 'hot'`).
   */
  readonly coldStartEngagement?: ColdStartEngagement;
  /** Share of the largest feature lift a personal feature needs to be the reason (default 1: see `explainRanking`). */
  readonly personalReasonShare?: number;
  /**
   * How the engagement the ranking reads (the `content_engagement` feature and the cold start's
   * measure) is counted (default `all-time`, the engine's: experiments rank with it):
   * - `all-time`: every interaction a post ever drew counts the same;
   * - `pace`: decayed at the half-life the community's pace names (./engagement-pace.ts): a
   *   feed's posts by what they drew in the last hours, a catalogue's by all of it;
   * - a number of hours: decayed at that half-life (the nearest of PACE_HALF_LIVES_HOURS).
   */
  readonly engagementHalfLife?: EngagementHalfLife;
  /** Post ids to leave out (the client has them already); a reblog's group goes with it. */
  readonly excludeIds?: Iterable<string>;
  /**
   * Posts created after this instant are not candidates (default: none left out; a post from
   * the future then counts as brand new). The server sets it when it ranks an imported history
   * as of its end (docs/ranking.md, "The ranking's clock"): what was posted later did not exist yet.
   */
  readonly createdNotAfterMs?: number;
  /**
   * The co-engagement state the collaborative feature reads (./co-engagement.ts); without
   * it, or with a collaborative weight of 0, the feature is 0 and ranks nothing.
   */
  readonly coEngagement?: CoEngagementReader;
  /**
   * The user's co-engaged posts (`collaborativeMatches` of the profile's recent posts), when the
   * caller computed them already: used instead of computing them again from `coEngagement`.
   */
  readonly collaborative?: ReadonlyMap<string, CollaborativeMatch>;
}

/** Three posts per author keeps one prolific account from filling a 20-item list. */
export const DEFAULT_PER_AUTHOR_CAP = 3;

/** A day: a post loses half its recency score every 24 hours (the engine's default: experiments rank with it). */
export const DEFAULT_RECENCY_HALF_LIFE_HOURS = 24;

/** The knobs of a ranking beyond its `algorithm_config`. */
export type RankingKnobs = Pick<
  RankingOptions,
  'recencyHalfLifeHours' | 'coldStartWeights' | 'coldStartEngagement' | 'personalReasonShare' | 'perAuthorCap' | 'engagementHalfLife'
>;

/**
 * The knobs of the shipped default ranking (with DEFAULT_ALGORITHM_CONFIG, for users outside
 * experiments), chosen by offline evaluation on a feed and a catalogue (bench/README.md,
 * "Ranking quality"). Experiments keep the engine's defaults, so that every experiment ranks
 * as it did when it was created.
 * - Recency halves every 8 hours: on a feed attention to a post fades within hours (24 h
 *   ranked day-old posts with new ones); on a catalogue every post is many half-lives old,
 *   so recency stays out of the way.
 * - Cold start: engagement and recency in equal parts, as good as "hot" (engagement /
 *   (age + 2)^1.8) on a feed and about plain popularity on a catalogue; trending tags are not
 *   scored (they lowered both), and still name the reason when they apply.
 * - A liked author, a matching topic or co-engagement is named as the reason when it lifted
 *   the score at least a third as much as engagement or recency did: the author weighs 0.57
 *   of recency, and an author liked three times reaches 0.76 of the feature's range, so its
 *   lift is about 0.43 of a brand-new post's recency lift; by the largest lift alone a
 *   personal reason would hardly ever be named.
 * - Engagement at the community's pace (`engagementHalfLife: 'pace'`): on a feed what a post
 *   drew in the last hours predicts its next favourites far better than its all-time count,
 *   on a catalogue only the all-time count does; the pace tells them apart from the data.
 */
export const SHIPPED_RANKING_OPTIONS: Readonly<Required<RankingKnobs>> = {
  recencyHalfLifeHours: 8,
  coldStartWeights: { content_engagement: 0.5, recency: 0.5, trending: 0 },
  coldStartEngagement: 'positives',
  personalReasonShare: 1 / 3,
  perAuthorCap: DEFAULT_PER_AUTHOR_CAP,
  engagementHalfLife: 'pace',
};

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

/** The counters the pool keeps: the engagement score's and the bookmarks the positives count adds. */
export type PoolCounts = Pick<RankablePost, 'favourites' | 'reblogs' | 'replies' | 'bookmarks'>;

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
