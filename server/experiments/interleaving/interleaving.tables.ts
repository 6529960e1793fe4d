/**
 * Table types of interleaving experiments (migration 0023), kept beside the feature's own:
 * repositories here see them through `withInterleavingTables(db)`.
 */
import type { Generated, Kysely } from 'kysely';
import type { Database } from '../../platform/db/database.js';

export type InterleavingImpressionsTable = {
  id: Generated<number>;
  experiment_id: number;
  /** As experiment_impressions stores it (the pseudonym where user ids are pseudonymised). */
  user_id: string;
  post_id: string;
  /** The variant whose ranker contributed the item. */
  team: string;
  served_at_ms: number;
};

// A type alias, not an interface: kysely's withTables wants an indexable record.
export type InterleavingTables = {
  interleaving_impressions: InterleavingImpressionsTable;
  /** The experiments table's `type` column (`ab` | `interleaving`). */
  experiments: { type: Generated<string> };
};

/** The database typed with the interleaving tables too. */
export function withInterleavingTables(db: Kysely<Database>): Kysely<Database & InterleavingTables> {
  return db.withTables<InterleavingTables>();
}
