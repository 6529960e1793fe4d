/**
 * What feedback reports for experiment measurement: a port the recommendations feature declares,
 * the experiments feature implements (experimentMeasurement) and server/features.ts wires. The
 * call runs inside the caller's transaction, so the counts commit or roll back with the feedback.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database.js';

export interface FeedbackMeasurement {
  /** Feedback of `pseudonym` (`positive`: "more like this") was stored at `atMs`. */
  feedbackStored(trx: Kysely<Database>, pseudonym: string, atMs: number, positive: boolean): Promise<void>;
}

/** Measures nothing: a service built without the experiments feature (tests of other concerns). */
export const UNMEASURED_FEEDBACK: FeedbackMeasurement = Object.freeze({ feedbackStored: async () => {} });
