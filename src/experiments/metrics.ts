/**
 * Per-user counts and the six engagement metrics of decisions.md. Each metric is a
 * ratio of sums over a variant's users: sum(numerator) / sum(denominator).
 */

/** The per-user counts the analysis works from (one `user` line of an export). */
export interface UserCounts {
  impressions: number;
  clicks: number;
  interactions: number;
  sessions: number;
  session_seconds: number;
  bounces: number;
  feedback_positive: number;
  feedback_negative: number;
}

export type CountKey = keyof UserCounts;

/** The counts in file order (the CSV's columns after user_id and variant). */
export const COUNT_KEYS = [
  'impressions',
  'clicks',
  'interactions',
  'sessions',
  'session_seconds',
  'bounces',
  'feedback_positive',
  'feedback_negative',
] as const satisfies readonly CountKey[];

/** A metric's numerator key and the keys summed for its denominator. */
export interface MetricDefinition {
  numerator: CountKey;
  denominator: readonly CountKey[];
}

export const METRICS = {
  click_through_rate: { numerator: 'clicks', denominator: ['impressions'] },
  interaction_rate: { numerator: 'interactions', denominator: ['impressions'] },
  session_duration: { numerator: 'session_seconds', denominator: ['sessions'] },
  bounce_rate: { numerator: 'bounces', denominator: ['sessions'] },
  recommendations_consumed: { numerator: 'clicks', denominator: ['sessions'] },
  user_satisfaction: { numerator: 'feedback_positive', denominator: ['feedback_positive', 'feedback_negative'] },
} as const satisfies Record<string, MetricDefinition>;

export type MetricName = keyof typeof METRICS;

export const METRIC_NAMES = Object.keys(METRICS) as MetricName[];

export const DEFAULT_PRIMARY_METRIC: MetricName = 'click_through_rate';

/**
 * Metrics whose numerator counts events out of the denominator's units, a share in [0, 1]
 * (clicks and interactions of impressions, bounces of sessions, positive answers of answers).
 */
export const PROPORTION_METRICS: ReadonlySet<MetricName> = new Set([
  'click_through_rate',
  'interaction_rate',
  'bounce_rate',
  'user_satisfaction',
]);

/**
 * The fewest denominator units (answers for user_satisfaction, impressions, sessions, requests)
 * a variant needs before a metric's comparison can be significant, a guardrail can flag harm or a
 * gate can pass or fail on it, beside minimum_sample_size users: the users minimum counts users,
 * and a metric only some users contribute to (feedback) can have a handful of units when it is
 * reached. With fewer, the normal approximations every interval rests on do not hold (issue 30:
 * 8 answers an arm at 100 users gave 6-8% false positives on user_satisfaction, read hourly).
 */
export const MINIMUM_METRIC_UNITS = 30;

/** The direction a metric moves when a variant does harm: only bounce_rate is worse when it rises. */
export type HarmDirection = 'increase' | 'decrease';

/** Per metric, the harmful direction (what a guardrail tests for, one-sided). */
export const HARM_DIRECTIONS: Record<MetricName, HarmDirection> = {
  click_through_rate: 'decrease',
  interaction_rate: 'decrease',
  session_duration: 'decrease',
  bounce_rate: 'increase',
  recommendations_consumed: 'decrease',
  user_satisfaction: 'decrease',
};

/**
 * Guardrails of an experiment created without `guardrail_metrics`: the two user metrics that
 * say a ranking drives people away (more bounces, less satisfaction). Performance figures
 * (error rate, p95 latency) are per variant, not per user: the gates judge them.
 */
export const DEFAULT_GUARDRAIL_METRICS: readonly MetricName[] = ['bounce_rate', 'user_satisfaction'];

/** Short names the CLI accepts for metrics (the gates' short names where they overlap). */
export const METRIC_ALIASES: Readonly<Record<string, MetricName>> = {
  ctr: 'click_through_rate',
  satisfaction: 'user_satisfaction',
};

/** The metric a name or alias stands for, or undefined. */
export function resolveMetricName(name: string): MetricName | undefined {
  const trimmed = name.trim();
  if (isMetricName(trimmed)) return trimmed;
  return Object.hasOwn(METRIC_ALIASES, trimmed) ? METRIC_ALIASES[trimmed] : undefined;
}

/** Whether `value` names one of the six metrics. */
export function isMetricName(value: unknown): value is MetricName {
  return typeof value === 'string' && Object.hasOwn(METRICS, value);
}

/** A metric's numerator and denominator for one user: (counts[numerator], Σ counts[denominator keys]). */
export function metricTerms(metric: MetricName, counts: UserCounts): [numerator: number, denominator: number] {
  const definition: MetricDefinition = METRICS[metric];
  let denominator = 0;
  for (const key of definition.denominator) denominator += counts[key];
  return [counts[definition.numerator], denominator];
}

/** Counts of zero, for building users up field by field. */
export function emptyCounts(): UserCounts {
  return {
    impressions: 0,
    clicks: 0,
    interactions: 0,
    sessions: 0,
    session_seconds: 0,
    bounces: 0,
    feedback_positive: 0,
    feedback_negative: 0,
  };
}
