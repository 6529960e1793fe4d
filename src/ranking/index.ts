/**
 * The ranking engine's public surface: the server builds one `CandidateIndex`, keeps a
 * `UserProfile` per active user, and calls `rankCandidates` per request.
 */
export * from './ranking.types.js';
export { effectiveWeights } from './weights.js';
export { htmlToText, normaliseTag, tokenize, termCounts, tagTerm, TAG_TERM_WEIGHT } from './text.js';
export {
  authorPreferenceFeature,
  recencyFeature,
  engagementLog,
  engagementScore,
  positivesCount,
  positivesLog,
  ENGAGEMENT_WEIGHTS,
  AUTHOR_AFFINITY_SCALE,
  AFFINITY_HALF_LIFE_DAYS,
  AFFINITY_HALF_LIFE_MS,
} from './features.js';
export { DecayedSums, type StoredDecayedSums } from './decayed-sums.js';
export {
  CandidateIndex,
  DEFAULT_CANDIDATE_INDEX_OPTIONS,
  primaryLanguage,
  RUNGS,
  type CandidateIndexOptions,
  type DecayedEngagement,
} from './candidate-index.js';
export {
  ALL_TIME,
  ALL_TIME_PACE_HOURS,
  EngagementPace,
  PACE_HALF_LIVES_HOURS,
  PACE_MIN_SAMPLES,
  PACE_WINDOW,
  paceBucket,
  rungOfHalfLife,
} from './engagement-pace.js';
export {
  accountAgeWeight,
  computeTrendingPosts,
  distinctEngagement,
  engagerGroups,
  engagerInstance,
  NEW_ACCOUNT_FULL_AGE_DAYS,
  NEW_ACCOUNT_MIN_WEIGHT,
  TRENDING_HALF_LIFE_HOURS,
  TRENDING_PAGE_SIZE,
  TRENDING_WINDOW_HOURS,
  type EngagerGroup,
  type PostEngagement,
  type TrendCandidate,
  type TrendingTag,
} from './trending.js';
export {
  applyFeedback,
  applyInteraction,
  applySignal,
  addInterest,
  buildProfileFromStored,
  buildUserProfile,
  interestAfter,
  interestAfterStored,
  interestTerms,
  interestVector,
  emptyProfile,
  estimatedProfileBytes,
  isColdStart,
  learnedPreferences,
  setPreferences,
  FEEDBACK_STRENGTH,
  INTERACTION_STRENGTH,
  type StoredProfileInput,
  type TermWeigher,
  type UserProfile,
  type UserProfileInput,
} from './profile.js';
export { FAVOURED_AUTHOR_AFFINITY, FAVOURED_TAG_INTEREST } from './user-context.js';
export { rankCandidates, COLD_START_WEIGHTS } from './rank.js';
export {
  CoEngagement,
  CoEngagementReplay,
  coEngagementSimilarity,
  DEFAULT_CO_ENGAGEMENT_OPTIONS,
  recentOtherPosts,
  SEED_DAMPING,
  replayCoEngagement,
  type CoEngagementChange,
  type CoEngagementEvent,
  type CoEngagementOptions,
  type CoEngagementReader,
} from './co-engagement.js';
export { collaborativeMatches, MAX_RECENT_POSTS, type CollaborativeMatch } from './collaborative.js';
export { collaborativeFetch, COLLABORATIVE_FETCH_LIMIT, type CollaborativeFetch } from './collaborative-fetch.js';
export { explainRanking, featureLifts, type Reason, type ReasonContext } from './reasons.js';
export { planSeamlessInsertions, DEFAULT_INJECTION_RATIO } from './seamless.js';
export { DEFAULT_SOURCE_SHARES, sourceSharesFromEnv, takeWithinShares, type SourceShares, type SourcedItem } from './source-shares.js';
