/**
 * The experiments feature's one facade for what other features report at write time: it
 * implements their ports (interactions' InteractionMeasurement, feedback's FeedbackMeasurement)
 * over its own tables, in the caller's transaction. The SQL stays in the experiments repositories.
 */
import type { InteractionMeasurement } from '../interactions/interaction-measurement.types.js';
import type { FeedbackMeasurement } from '../recommendations/feedback-measurement.types.js';
import { PRE_PERIOD_MS } from './experiment-data.repository.js';
import { addPreEngagement, addUserCounts, removePreEngagement } from './serving.repository.js';

export const experimentMeasurement: InteractionMeasurement & FeedbackMeasurement = Object.freeze({
  async interactionStored(trx, pseudonym, atMs, nowMs) {
    await addUserCounts(trx, pseudonym, atMs, 'interactions', 1);
    // Logged after the fact: the pre-period baseline of an experiment already under way may hold it.
    if (atMs < nowMs) await addPreEngagement(trx, pseudonym, atMs, PRE_PERIOD_MS);
  },
  async interactionUndone(trx, pseudonym, atMs) {
    await addUserCounts(trx, pseudonym, atMs, 'interactions', -1);
    await removePreEngagement(trx, pseudonym, atMs, PRE_PERIOD_MS);
  },
  async feedbackStored(trx, pseudonym, atMs, positive) {
    await addUserCounts(trx, pseudonym, atMs, positive ? 'feedback_positive' : 'feedback_negative', 1);
  },
} satisfies InteractionMeasurement & FeedbackMeasurement);
