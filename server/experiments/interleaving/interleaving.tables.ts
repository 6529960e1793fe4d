/**
 * Table types of interleaving experiments (migration 0023), kept beside the feature's own:
 * they join `Database` like every feature's.
 */
import type { Generated, Kysely } from 'kysely';

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

export type InterleavingTables = {
  interleaving_impressions: InterleavingImpressionsTable;
};

/** The database as the interleaving repositories see it: `Database`, which lists these tables (kept for the tests that read them). */
export function withInterleavingTables<DB>(db: Kysely<DB>): Kysely<DB> {
  return db;
}

// These tables join the service's one `Database` type (server/platform/db/database.ts).
declare module '../../platform/db/database.js' {
  interface Database extends InterleavingTables {}
}
