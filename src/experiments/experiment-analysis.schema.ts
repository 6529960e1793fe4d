/**
 * Shape of `GET /api/v1/analytics/experiments/{id}/analysis`: exactly `AnalysisResult`
 * of analysis.ts (the CLI's `analyze --json` prints the same object). Schemas stay within
 * what OpenAPI 3.0 can say: an interval is an array of two numbers (minItems/maxItems, not a
 * JSON Schema tuple, which 3.0 rejects), and `X | null` unions become `nullable: true` in
 * the generated document.
 */
import { Type, type Static } from '@sinclair/typebox';
import { AnalysisMethodSchema } from './experiment.schema.js';
import { SrmSchema } from './experiment-response.schema.js';
import { LiteralUnion } from '../schemas/common.schema.js';
import { METRIC_ROLES } from './stats/guardrails.js';

const NullableNumber = () => Type.Union([Type.Number(), Type.Null()]);
/** [low, high] of a difference (treatment − control). */
const Interval = () =>
  Type.Array(Type.Number(), { minItems: 2, maxItems: 2, description: '[low, high] of the difference treatment − control' });

export const CupedComparisonSchema = Type.Object(
  {
    covariate: Type.String({ description: 'The per-user pre-experiment covariate: pre_engagement' }),
    theta: Type.Number({ description: 'Pooled within-variant OLS slope of the linearised metric on the covariate' }),
    difference: NullableNumber(),
    standard_error: NullableNumber(),
    ci_low: NullableNumber(),
    ci_high: NullableNumber(),
    p_value: NullableNumber(),
    variance_reduction: Type.Union([Type.Number(), Type.Null()], { description: '1 - SE_adj^2 / SE^2' }),
  },
  { title: 'CupedComparison', description: 'The CUPED-adjusted comparison, beside the unadjusted one (not Holm-adjusted)' },
);

const MetricRoleSchema = () =>
  LiteralUnion(METRIC_ROLES, {
    description: 'primary: the decision is drawn from it alone; guardrail: tested one-sided for harm; exploratory: reported only',
  });

export const GuardrailResultSchema = Type.Object(
  {
    metric: Type.String(),
    variant: Type.String(),
    control: Type.String(),
    harm_direction: Type.Union([Type.Literal('increase'), Type.Literal('decrease')], {
      description: 'The direction in which the metric does harm',
    }),
    difference: NullableNumber(),
    p_value: Type.Union([Type.Number(), Type.Null()], { description: 'One-sided p-value for harm, unadjusted' }),
    adjusted_p_value: Type.Union([Type.Number(), Type.Null()], { description: 'Holm-adjusted across every guardrail metric × treatment' }),
    harm_bound: Type.Union([Type.Number(), Type.Null()], {
      description: 'One-sided bound of the difference at bound_level; harm is detected exactly when it is on the harmful side of 0',
    }),
    bound_level: NullableNumber(),
    correction: Type.Literal('holm'),
    harm_detected: Type.Boolean(),
    early: Type.Optional(
      Type.Boolean({ description: 'Harm detected before minimum_sample_size users on the always-valid (sequential) one-sided test' }),
    ),
  },
  { title: 'GuardrailResult' },
);

const InstanceBreakdownSchema = Type.Object(
  {
    instance: Type.String({ description: "The host of the users' canonical ids, or the local label for bare local ids" }),
    users: Type.Integer(),
    sample_sizes: Type.Record(Type.String(), Type.Integer()),
    srm: Type.Union([SrmSchema, Type.Null()], { description: 'Null below 100 users on the instance' }),
    metrics: Type.Record(Type.String(), Type.Record(Type.String(), NullableNumber())),
  },
  { title: 'InstanceBreakdown' },
);

const DecisionSchema = Type.Object(
  {
    metric: Type.String({ description: 'The primary metric: the decision is drawn from it alone' }),
    variants: Type.Array(
      Type.Object({
        variant: Type.String(),
        outcome: LiteralUnion(['better', 'worse', 'not_significant', 'underpowered', 'no_data']),
        guardrails_harmed: Type.Array(Type.String()),
      }),
    ),
  },
  { title: 'Decision' },
);

export const ComparisonSchema = Type.Object({
  metric: Type.String(),
  variant: Type.String(),
  control: Type.String(),
  control_value: NullableNumber(),
  variant_value: NullableNumber(),
  difference: NullableNumber(),
  standard_error: NullableNumber(),
  ci_low: NullableNumber(),
  ci_high: NullableNumber(),
  effect_size: NullableNumber(),
  p_value: NullableNumber(),
  adjusted_p_value: NullableNumber(),
  adjusted_ci_low: NullableNumber(),
  adjusted_ci_high: NullableNumber(),
  significant: Type.Boolean(),
  sparse: Type.Boolean({
    description: "An arm has fewer than MINIMUM_METRIC_UNITS (30) of the metric's denominator units: reported, never significant",
  }),
  role: MetricRoleSchema(),
  cuped: Type.Optional(CupedComparisonSchema),
});

export const SignificanceRecordSchema = Type.Object({
  metric: Type.String(),
  p_value: NullableNumber(),
  unadjusted_p_value: NullableNumber(),
  confidence_interval: Type.Union([Interval(), Type.Null()]),
  adjusted_confidence_interval: Type.Union([Interval(), Type.Null()]),
  effect_size: NullableNumber(),
  significance: Type.Union([Type.Literal('statistically_significant'), Type.Literal('not_significant'), Type.Literal('underpowered')]),
});

export const SequentialTuningSchema = Type.Object(
  {
    target_sample_size: Type.Integer({ description: 'Users in the two variants compared at which the confidence sequence is narrowest' }),
    rho_squared: Type.Number({ description: 'Mixing parameter: tau^2 = rho^2 * SE^2 * n' }),
  },
  { title: 'SequentialTuning' },
);

export const ExperimentAnalysisSchema = Type.Object(
  {
    analysis_method: AnalysisMethodSchema,
    sequential_tuning: Type.Union([SequentialTuningSchema, Type.Null()]),
    primary_metric: Type.String(),
    guardrail_metrics: Type.Array(Type.String()),
    metric_roles: Type.Record(Type.String(), MetricRoleSchema()),
    confidence_level: Type.Number(),
    minimum_sample_size: Type.Integer(),
    control: Type.String(),
    sample_sizes: Type.Record(Type.String(), Type.Integer()),
    metrics: Type.Record(Type.String(), Type.Record(Type.String(), NullableNumber())),
    comparisons: Type.Array(ComparisonSchema),
    srm: SrmSchema,
    underpowered: Type.Boolean(),
    underpowered_variants: Type.Array(Type.String()),
    statistical_significance: Type.Record(Type.String(), SignificanceRecordSchema),
    confidence_intervals: Type.Record(Type.String(), Interval()),
    guardrails: Type.Array(GuardrailResultSchema),
    decision: DecisionSchema,
    by_instance: Type.Optional(Type.Array(InstanceBreakdownSchema)),
  },
  { title: 'ExperimentAnalysis' },
);
export type ExperimentAnalysis = Static<typeof ExperimentAnalysisSchema>;
