/**
 * What the interactions feature reports for experiment measurement: a port it declares, the
 * experiments feature implements (experimentMeasurement) and server/features.ts wires. Each
 * call runs inside the caller's transaction, so the counts commit or roll back with the write.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database.js';

export interface InteractionMeasurement {
  /** An interaction of `pseudonym` made at `atMs` was stored at `nowMs` (one logged after the fact may fall in a pre-period). */
  interactionStored(trx: Kysely<Database>, pseudonym: string, atMs: number, nowMs: number): Promise<void>;
  /** An interaction made at `atMs` was undone. */
  interactionUndone(trx: Kysely<Database>, pseudonym: string, atMs: number): Promise<void>;
}

/** Measures nothing: a service built without the experiments feature (tests of other concerns). */
export const UNMEASURED_INTERACTIONS: InteractionMeasurement = Object.freeze({
  interactionStored: async () => {},
  interactionUndone: async () => {},
});
