/**
 * Wire schemas of experiments: the single source of truth for the shape the server
 * validates and documents (fastify's TypeBox type provider) and the CLI sends.
 * Types live here; numeric range rules live in `validate-experiment.ts`, which can
 * name the exact field (`variants[2].traffic_allocation`) in a human message.
 */
import { Type, type Static } from '@sinclair/typebox';
import { LiteralUnion } from '../schemas/common.schema.js';
import { ExperimentTypeInputSchema } from './interleaving/experiment-type.js';
import { DEFAULT_GATE_RULE, DEFAULT_GATE_THRESHOLDS, EXPERIMENT_DEFAULTS, GATE_RULES } from './experiment-defaults.js';
import { DEFAULT_GUARDRAIL_METRICS, DEFAULT_PRIMARY_METRIC, METRIC_NAMES } from './metrics.js';
import { ANALYSIS_METHODS, DEFAULT_ANALYSIS_METHOD, type AnalysisMethod } from './stats/sequential.js';

export const WeightsSchema = Type.Object(
  {
    author_preference: Type.Number(),
    content_engagement: Type.Number(),
    recency: Type.Number(),
    semantic_similarity: Type.Number(),
    collaborative: Type.Optional(
      Type.Number({
        description: 'The fifth weight: posts co-engaged with what the user liked (docs/ranking.md); absent means 0',
      }),
    ),
  },
  { additionalProperties: false, description: 'Ranking weights, each in [0, 1], summing to 1.0' },
);
export type Weights = Static<typeof WeightsSchema>;

export const AlgorithmConfigSchema = Type.Object(
  {
    weights: WeightsSchema,
    use_semantic_scoring: Type.Optional(Type.Boolean()),
    semantic_weight: Type.Optional(Type.Number({ description: 'In [0, 1]' })),
  },
  { additionalProperties: false },
);
export type AlgorithmConfig = Static<typeof AlgorithmConfigSchema>;

export const VariantInputSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    description: Type.Optional(Type.String({ default: '' })),
    traffic_allocation: Type.Number({ description: 'Percent of enrolled users; all variants sum to 100' }),
    algorithm_config: AlgorithmConfigSchema,
    is_control: Type.Boolean(),
  },
  { additionalProperties: false, title: 'VariantInput' },
);
export type VariantInput = Static<typeof VariantInputSchema>;

export const GateThresholdsSchema = Type.Object(
  {
    max_response_time_p95: Type.Optional(
      Type.Number({ default: DEFAULT_GATE_THRESHOLDS.max_response_time_p95, description: 'Milliseconds' }),
    ),
    min_click_through_rate: Type.Optional(Type.Number({ default: DEFAULT_GATE_THRESHOLDS.min_click_through_rate })),
    max_error_rate: Type.Optional(Type.Number({ default: DEFAULT_GATE_THRESHOLDS.max_error_rate })),
    min_user_satisfaction: Type.Optional(Type.Number({ default: DEFAULT_GATE_THRESHOLDS.min_user_satisfaction })),
  },
  { additionalProperties: false, title: 'GateThresholds' },
);
export type GateThresholds = Static<typeof GateThresholdsSchema>;

export const MetricNameSchema = LiteralUnion(METRIC_NAMES, { default: DEFAULT_PRIMARY_METRIC });

const ANALYSIS_METHOD_DESCRIPTION =
  'fixed: z-test and interval valid for one planned read; sequential: always-valid p-value and confidence sequence (mixture SPRT), valid at every read while the experiment runs';

/** fixed | sequential (sequential.ts): how the experiment's results are read. */
export const AnalysisMethodSchema = LiteralUnion(ANALYSIS_METHODS, { description: ANALYSIS_METHOD_DESCRIPTION });

/** What an experiment records beyond the response's fields: its analysis method. */
export interface RecordedAnalysisMethod {
  analysis_method: AnalysisMethod;
}

export const ExperimentCreateSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ default: '' })),
    traffic_percentage: Type.Optional(
      Type.Number({ default: EXPERIMENT_DEFAULTS.traffic_percentage, description: 'Percent of users enrolled, in (0, 100]' }),
    ),
    minimum_sample_size: Type.Optional(
      Type.Integer({ default: EXPERIMENT_DEFAULTS.minimum_sample_size, description: 'Users per variant, at least 1' }),
    ),
    confidence_level: Type.Optional(Type.Number({ default: EXPERIMENT_DEFAULTS.confidence_level, description: 'In (0, 1)' })),
    variants: Type.Array(VariantInputSchema),
    gates: Type.Optional(GateThresholdsSchema),
    primary_metric: Type.Optional(MetricNameSchema),
    type: Type.Optional(ExperimentTypeInputSchema),
    guardrail_metrics: Type.Optional(
      Type.Array(LiteralUnion(METRIC_NAMES), {
        maxItems: METRIC_NAMES.length,
        description: `Metrics tested one-sided for harm (Holm-corrected across them); never the primary metric. Every other metric is exploratory. Default: ${DEFAULT_GUARDRAIL_METRICS.join(', ')} (without the primary metric)`,
      }),
    ),
    gate_rule: Type.Optional(
      LiteralUnion(GATE_RULES, {
        default: DEFAULT_GATE_RULE,
        description:
          "How the gate agent and gates check judge this experiment: bounds (the whole interval clears the threshold) or point (the spec's rule on the value)",
      }),
    ),
    analysis_method: Type.Optional(
      LiteralUnion(ANALYSIS_METHODS, { default: DEFAULT_ANALYSIS_METHOD, description: ANALYSIS_METHOD_DESCRIPTION }),
    ),
  },
  { additionalProperties: false, title: 'ExperimentCreate' },
);
export type ExperimentCreate = Static<typeof ExperimentCreateSchema>;
