/**
 * The ranking engine's public surface: the server builds one `CandidateIndex`, keeps a
 * `UserProfile` per active user, and calls `rankCandidates` per request.
 */
export * from './ranking.types.js';
export { effectiveWeights } from './weights.js';
export { htmlToText, tokenize, termCounts, tagTerm, TAG_TERM_WEIGHT } from './text.js';
export {
  authorPreferenceFeature,
  recencyFeature,
  engagementLog,
  AUTHOR_AFFINITY_SCALE,
  AFFINITY_HALF_LIFE_DAYS,
  AFFINITY_HALF_LIFE_MS,
} from './features.js';
export {
  CandidateIndex,
  DEFAULT_CANDIDATE_INDEX_OPTIONS,
  primaryLanguage,
  type CandidateIndexOptions,
} from './candidate-index.js';
export type { TrendingTag } from './trending.js';
export {
  applyFeedback,
  applyInteraction,
  buildUserProfile,
  emptyProfile,
  isColdStart,
  learnedPreferences,
  setPreferences,
  FEEDBACK_STRENGTH,
  INTERACTION_STRENGTH,
  type TermWeigher,
  type UserProfile,
  type UserProfileInput,
} from './profile.js';
export { FAVOURED_AUTHOR_AFFINITY, FAVOURED_TAG_INTEREST } from './user-context.js';
export { rankCandidates, COLD_START_WEIGHTS } from './rank.js';
export { explainRanking, featureLifts, type Reason, type ReasonContext } from './reasons.js';
export { injectionRatio, planSeamlessInsertions, DEFAULT_INJECTION_RATIO, ENGAGED_INJECTION_RATIO } from './seamless.js';
