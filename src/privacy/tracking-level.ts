/**
 * Tracking levels: what the service may store about a user, one table for every write path.
 * `full` keeps everything; `limited` (the deployment default unless RECSVC_DEFAULT_TRACKING_LEVEL
 * says otherwise) keeps what ranking needs and only per-user aggregate counts for experiments;
 * `none` stores nothing about the user (non-personalised lists, never enrolled in experiments).
 */
export const TRACKING_LEVELS = ['full', 'limited', 'none'] as const;
export type TrackingLevel = (typeof TRACKING_LEVELS)[number];

export const DEFAULT_TRACKING_LEVEL: TrackingLevel = 'limited';

export interface TrackingAllowance {
  /** Interactions, feedback, preferences, affinities and interest vectors are stored and used for ranking. */
  readonly storeInteractions: boolean;
  /** Event-level analytics rows (analytics_events, per-post experiment impressions) are stored. */
  readonly storeEventRows: boolean;
  /** Per-user aggregate counts for experiment analysis are kept (pseudonymised). */
  readonly storeAggregateCounts: boolean;
  /** The user may be assigned to experiments. */
  readonly enrolInExperiments: boolean;
  /** Days after which the retention agent purges the user's stored rows; null keeps them. */
  readonly retentionDays: number | null;
}

const ALLOWANCES: Readonly<Record<TrackingLevel, TrackingAllowance>> = {
  full: { storeInteractions: true, storeEventRows: true, storeAggregateCounts: true, enrolInExperiments: true, retentionDays: 365 },
  limited: { storeInteractions: true, storeEventRows: false, storeAggregateCounts: true, enrolInExperiments: true, retentionDays: 90 },
  none: { storeInteractions: false, storeEventRows: false, storeAggregateCounts: false, enrolInExperiments: false, retentionDays: 0 },
};

export function allowanceOf(level: TrackingLevel): TrackingAllowance {
  return ALLOWANCES[level];
}

export function isTrackingLevel(value: unknown): value is TrackingLevel {
  return typeof value === 'string' && (TRACKING_LEVELS as readonly string[]).includes(value);
}
