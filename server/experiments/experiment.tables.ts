/** Table types of the experiments feature (rows never leave the repositories). */
import type { ColumnType, Generated } from 'kysely';
import type { DayCounters } from './counters.js';

/** A nullable column an insert may leave out (it is then null). */
type OptionalNullable<T> = ColumnType<T | null, T | null | undefined, T | null>;

export interface ExperimentsTable {
  id: Generated<number>;
  name: string;
  description: string;
  status: string;
  traffic_percentage: number;
  minimum_sample_size: number;
  confidence_level: number;
  primary_metric: string;
  /** `fixed` | `sequential` (migration 0018; the column's default, `fixed`, is older experiments'). */
  analysis_method: Generated<string>;
  /** JSON array of the guardrail metrics (migration 0022); null: created before guardrails (read as the defaults). */
  guardrail_metrics: OptionalNullable<string>;
  /** `bounds` | `point` (migration 0022): how the gate agent and `gates check` judge the experiment. */
  gate_rule: Generated<string>;
  /** JSON of the gate thresholds given at creation (null: the spec's defaults). */
  gates: string | null;
  created_at: string;
  updated_at: string;
  /** First start (ordering rule between several ACTIVE experiments). */
  started_at: string | null;
  ended_at: string | null;
  /** `ab` or `interleaving` (migration 0023). */
  type: Generated<string>;
}

/** One stretch of time the experiment was ACTIVE (start/resume to pause/stop). */
export interface ExperimentActivePeriodsTable {
  experiment_id: number;
  started_at_ms: number;
  /** Null while the period is open. */
  ended_at_ms: number | null;
}

export interface ExperimentVariantsTable {
  experiment_id: number;
  position: number;
  name: string;
  description: string;
  traffic_allocation: number;
  /** JSON of the variant's algorithm_config. */
  algorithm_config: string;
  is_control: number;
  blocked: number;
  blocked_at: string | null;
  blocked_reason: string | null;
}

export interface ExperimentAssignmentsTable {
  experiment_id: number;
  user_id: string;
  variant: string;
  assigned_at_ms: number;
}

export interface ExperimentImpressionsTable {
  id: Generated<number>;
  experiment_id: number;
  variant: string;
  user_id: string;
  post_id: string;
  score: number;
  reason_code: string;
  served_at_ms: number;
}

export interface ExperimentPerformanceTable {
  experiment_id: number;
  variant: string;
  requests: number;
  errors: number;
  cache_hits: number;
  cache_lookups: number;
}

export interface ExperimentLatencyBucketsTable {
  experiment_id: number;
  variant: string;
  /** Index into LATENCY_BUCKETS_MS. */
  bucket: number;
  count: number;
}

/** experiment_user_counts split by UTC day (migration 0025): what event rows cannot give per day. */
export interface ExperimentUserDayCountsTable extends DayCounters<Generated<number>> {
  id: Generated<number>;
  experiment_id: number;
  user_id: string;
  /** UTC midnight of the day (epoch ms). */
  day_ms: number;
}

export interface ExperimentTables {
  experiments: ExperimentsTable;
  experiment_variants: ExperimentVariantsTable;
  experiment_active_periods: ExperimentActivePeriodsTable;
  experiment_assignments: ExperimentAssignmentsTable;
  experiment_impressions: ExperimentImpressionsTable;
  experiment_performance: ExperimentPerformanceTable;
  experiment_latency_buckets: ExperimentLatencyBucketsTable;
  experiment_user_day_counts: ExperimentUserDayCountsTable;
}

// These tables join the service's one `Database` type (server/platform/db/database.ts).
declare module '../platform/db/database.js' {
  interface Database extends ExperimentTables {}
}
