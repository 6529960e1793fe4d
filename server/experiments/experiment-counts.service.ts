/**
 * The experiments feature's interface for the per-user counts other features keep at write
 * time (interactions, feedback and analytics events add to a user's experiment counts in
 * their own transactions; the privacy backfill rebuilds them once). The SQL stays in the
 * experiments repositories; other features import it from here only.
 */
export { addPreEngagement, addUserCounts, removePreEngagement } from './serving.repository.js';
export {
  addDayCounts,
  coldUsers,
  feedbackCounts,
  interactionCounts,
  PRE_PERIOD_MS,
  preEngagementCounts,
  type UserCountRow,
} from './experiment-data.repository.js';
