/**
 * Table types of the analytics feature: events reported by clients, and the per-user
 * aggregate counts experiments keep (migration 0021). User ids here are pseudonyms
 * (PrivacyPolicy.pseudonym), never raw ids.
 */
import type { Generated } from 'kysely';
import type { DayCounters } from '../counters.js';

export interface AnalyticsEventsTable {
  id: Generated<number>;
  /** click | view | session_start | session_end */
  type: string;
  user_id: string;
  post_id: string | null;
  session_id: string | null;
  /** The event's own time (client `timestamp`, else the receive time), epoch ms. */
  occurred_at_ms: number;
  /** When the service received it (server clock): decides which experiment period it falls in. */
  received_at_ms: number;
  /** An accepted click or view: the impression it claimed (unique per impression and type). */
  impression_id: number | null;
  /** Null when the event was accepted; else why it cannot be true (event-rules.ts). */
  rejected_reason: string | null;
}

/**
 * One enrolled user (pseudonym) of one experiment: what the analysis needs beyond event rows.
 * The counters (counters.ts): impressions, clicks and sessions of users at `limited` (no event rows
 * for them); interactions and feedback in the experiment window (every enrolled user).
 */
export interface ExperimentUserCountsTable extends DayCounters<Generated<number>> {
  experiment_id: number;
  user_id: string;
  variant: string;
  /** The variant bucket (0..99) of the canonical user id, recorded at assignment. */
  bucket: number;
  /** 1 when the user had no recorded activity before the assignment. */
  cold: Generated<number>;
  /** Interactions in the 14 days before the experiment first became active (CUPED). */
  pre_engagement: Generated<number>;
}

/** A `limited` user's session between its start and end (folded into the counts once complete). */
export interface ExperimentOpenSessionsTable {
  experiment_id: number;
  user_id: string;
  session_id: string;
  started_ms: number | null;
  ended_ms: number | null;
  clicks: Generated<number>;
  updated_at_ms: number;
}

/** One-time conversions done at start, by name. */
export interface PrivacyBackfillsTable {
  name: string;
  done_at_ms: number;
}

export interface AnalyticsTables {
  analytics_events: AnalyticsEventsTable;
  experiment_user_counts: ExperimentUserCountsTable;
  experiment_open_sessions: ExperimentOpenSessionsTable;
  privacy_backfills: PrivacyBackfillsTable;
}

// These tables join the service's one `Database` type (server/platform/db/database.ts).
declare module '../../platform/db/database.js' {
  interface Database extends AnalyticsTables {}
}
