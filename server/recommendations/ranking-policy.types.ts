/**
 * The seam between recommendations and experiments. The recommendation service
 * asks a RankingPolicy which algorithm config ranks a user's list (default, or
 * the variant of an ACTIVE experiment the user is enrolled in), and reports
 * every served list back so experiments can record impressions and performance.
 * The experiments feature implements it; without experiments the default policy
 * applies.
 */
import type { InterleaveSpec } from '../../src/experiments/interleaving/interleave-ranked.js';
import type { Team } from '../../src/experiments/interleaving/team-draft.js';
import type { AlgorithmConfig, RankingKnobs } from '../../src/ranking/ranking.types.js';

export interface RankingChoice {
  /** The config that ranks this list. */
  readonly config: AlgorithmConfig;
  /** Knobs beyond the config: the shipped default ranking's (SHIPPED_RANKING_OPTIONS); absent, the engine's defaults (experiments). */
  readonly options?: RankingKnobs;
  /** Label for `service_recommendation_generation_seconds{algorithm}`, e.g. `default` or `exp3:treatment`. */
  readonly algorithm: string;
  /** Present when the user is enrolled in an ACTIVE experiment. */
  readonly enrolment?: { readonly experimentId: number; readonly variant: string };
  /** Present for an interleaving experiment: rank with both configs and merge the lists by team draft. */
  readonly interleave?: InterleaveSpec<AlgorithmConfig>;
}

export interface ServedList {
  readonly userId: string;
  readonly choice: RankingChoice;
  /** Ids and scores of the posts served, in order. */
  readonly items: ReadonlyArray<{ readonly postId: string; readonly score: number; readonly reasonCode: string; readonly team?: Team }>;
  readonly latencyMs: number;
  readonly cacheHit: boolean;
  /** Set when generating the list failed (the error is still thrown to the caller). */
  readonly failed?: boolean;
}

export interface RankingPolicy {
  /** Chooses the ranking for a user (may record a first assignment). */
  choose(userId: string): Promise<RankingChoice> | RankingChoice;
  /** Observes a served (or failed) list; must not throw. */
  served(list: ServedList): Promise<void> | void;
  /** Optional: observes "more"/"less" feedback (experiments' user_satisfaction); must not throw. */
  feedback?(event: FeedbackEvent): Promise<void> | void;
}

export interface FeedbackEvent {
  readonly userId: string;
  readonly postId: string;
  readonly feedback: 'more' | 'less';
}
