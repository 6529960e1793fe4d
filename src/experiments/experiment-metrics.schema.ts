/**
 * Shape of `GET /api/v1/analytics/experiments/{id}/metrics`: per variant, the spec's
 * three groups. Definitions (all ratios of sums over the variant's enrolled users,
 * counting only what happened while the experiment was ACTIVE and after the user's
 * assignment; null when the denominator is 0):
 *
 * Engagement (decisions.md's table, the same numbers `analysis` reports):
 * - click_through_rate = clicks / impressions; interaction_rate = interactions / impressions;
 *   session_duration = session_seconds / sessions; bounce_rate = bounces / sessions;
 *   recommendations_consumed = clicks / sessions; user_satisfaction = positive / (positive + negative) feedback.
 *
 * Algorithm (from the impressions the service recorded when serving):
 * - avg_recommendation_score: mean ranking_score of the served posts.
 * - score_distribution: counts of served posts' scores in ten bins [0, 0.1), ..., [0.9, 1.0].
 * - recommendation_diversity: Σ distinct posts shown per user / Σ impressions: the share of
 *   impressions that showed the user a post they had not been shown before (1 = never a repeat).
 * - cold_start_performance: click-through rate of the variant's cold-start users, i.e. users
 *   with no recorded activity (events, interactions, feedback) before their assignment.
 * - semantic_match_quality: share of the impressions served for a semantic match
 *   (reason code SEMANTIC_MATCH) whose post the user then clicked.
 *
 * Performance (measured by the service per variant):
 * - response_time_p95 (ms): 95th percentile of recommendation latency, interpolated in a histogram.
 * - recommendations_per_second: recommendation requests served / seconds the experiment was ACTIVE.
 * - error_rate = failed requests / requests; cache_hit_rate = cache hits / cache lookups.
 */
import { Type, type Static } from '@sinclair/typebox';

const NullableNumber = (description?: string) => Type.Union([Type.Number(), Type.Null()], description ? { description } : {});

export const EngagementMetricsSchema = Type.Object({
  click_through_rate: NullableNumber('clicks / impressions'),
  interaction_rate: NullableNumber('interactions (favorite, bookmark, reblog) / impressions'),
  session_duration: NullableNumber('session seconds / sessions'),
  bounce_rate: NullableNumber('sessions without a click / sessions'),
  recommendations_consumed: NullableNumber('clicks / sessions'),
  user_satisfaction: NullableNumber('positive / (positive + negative) feedback'),
});

export const ScoreBinSchema = Type.Object({ lower: Type.Number(), upper: Type.Number(), count: Type.Integer() });

export const AlgorithmMetricsSchema = Type.Object({
  avg_recommendation_score: NullableNumber('Mean ranking_score of served posts'),
  score_distribution: Type.Array(ScoreBinSchema, { description: 'Served posts per score decile' }),
  recommendation_diversity: NullableNumber('Σ distinct posts per user / Σ impressions'),
  cold_start_performance: NullableNumber('Click-through rate of users without activity before assignment'),
  semantic_match_quality: NullableNumber('Share of SEMANTIC_MATCH impressions that were clicked'),
});

export const PerformanceMetricsSchema = Type.Object({
  response_time_p95: NullableNumber('Milliseconds'),
  recommendations_per_second: NullableNumber('Requests / seconds ACTIVE'),
  error_rate: NullableNumber('Errors / requests'),
  cache_hit_rate: NullableNumber('Cache hits / cache lookups'),
  requests: Type.Integer(),
  errors: Type.Integer(),
});

export const CountTotalsSchema = Type.Object({
  impressions: Type.Integer(),
  clicks: Type.Integer(),
  interactions: Type.Integer(),
  sessions: Type.Integer(),
  session_seconds: Type.Number(),
  bounces: Type.Integer(),
  feedback_positive: Type.Integer(),
  feedback_negative: Type.Integer(),
});

export const VariantMetricsSchema = Type.Object({
  name: Type.String(),
  is_control: Type.Boolean(),
  blocked: Type.Boolean(),
  users: Type.Integer(),
  totals: CountTotalsSchema,
  engagement: EngagementMetricsSchema,
  algorithm: AlgorithmMetricsSchema,
  performance: PerformanceMetricsSchema,
});

export const ExperimentMetricsSchema = Type.Object(
  {
    experiment_id: Type.Integer(),
    status: Type.String(),
    active_seconds: Type.Number(),
    variants: Type.Array(VariantMetricsSchema),
  },
  { title: 'ExperimentMetrics' },
);
export type ExperimentMetrics = Static<typeof ExperimentMetricsSchema>;
export type VariantMetrics = Static<typeof VariantMetricsSchema>;
