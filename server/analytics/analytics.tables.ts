/** Table types of the analytics feature: events reported by clients. */
import type { Generated } from 'kysely';

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

export interface AnalyticsTables {
  analytics_events: AnalyticsEventsTable;
}
