/**
 * Response shapes of the experiment resource and its status report, shared by the
 * server (validation, OpenAPI) and the CLI (types of what it reads).
 */
import { Type, type Static } from '@sinclair/typebox';
import { LiteralUnion } from '../schemas/common.schema.js';
import { AlgorithmConfigSchema, AnalysisMethodSchema } from './experiment.schema.js';
import { EXPERIMENT_STATUSES } from './state-machine.js';
import { ExperimentTypeSchema } from './interleaving/experiment-type.js';
import { GATE_RULES } from './gates/gates.js';

const Nullable = <T extends ReturnType<typeof Type.Number | typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const ExperimentStatusNameSchema = LiteralUnion(EXPERIMENT_STATUSES, {
  description: 'DRAFT -> ACTIVE (start) <-> PAUSED (pause/start) -> COMPLETED (stop)',
});

export const VariantSchema = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    traffic_allocation: Type.Number(),
    algorithm_config: AlgorithmConfigSchema,
    is_control: Type.Boolean(),
    blocked: Type.Boolean({ description: 'Failed a performance gate: its users are served the control ranking' }),
    blocked_reason: Nullable(Type.String()),
  },
  { title: 'Variant' },
);
export type Variant = Static<typeof VariantSchema>;

export const ResolvedGateThresholdsSchema = Type.Object(
  {
    max_response_time_p95: Type.Number(),
    min_click_through_rate: Type.Number(),
    max_error_rate: Type.Number(),
    min_user_satisfaction: Type.Number(),
  },
  { title: 'ResolvedGateThresholds', description: "The thresholds in force: the creation body's `gates` over the spec's defaults" },
);

export const ExperimentSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Type.String(),
    status: ExperimentStatusNameSchema,
    traffic_percentage: Type.Number(),
    minimum_sample_size: Type.Integer(),
    confidence_level: Type.Number(),
    primary_metric: Type.String(),
    // Optional in the schema only so a client still reads an older server; this server always sends it.
    type: Type.Optional(ExperimentTypeSchema),
    // Optional in the schema only so a client still reads an older server; this server always sends both.
    guardrail_metrics: Type.Optional(
      Type.Array(Type.String(), {
        description: 'Metrics tested one-sided for harm, Holm-corrected across them; every other non-primary metric is exploratory',
      }),
    ),
    gate_rule: Type.Optional(
      LiteralUnion(GATE_RULES, {
        description: 'How the gate agent and gates check judge this experiment (bounds or point), unless a read overrides it',
      }),
    ),
    analysis_method: AnalysisMethodSchema,
    gates: ResolvedGateThresholdsSchema,
    variants: Type.Array(VariantSchema),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    started_at: Nullable(Type.String({ format: 'date-time' })),
    ended_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'Experiment' },
);
export type Experiment = Static<typeof ExperimentSchema>;

export const SrmSchema = Type.Object(
  {
    chi_square: Nullable(Type.Number()),
    p_value: Nullable(Type.Number()),
    mismatch: Type.Boolean({ description: 'p < 0.001: users are not split as the allocations say' }),
  },
  { title: 'SampleRatioMismatch' },
);

export const ExperimentStatusSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    status: ExperimentStatusNameSchema,
    users_assigned: Type.Integer(),
    variants: Type.Array(
      Type.Object({
        name: Type.String(),
        users_assigned: Type.Integer(),
        share: Type.Number({ description: 'users_assigned / all users assigned (0 when none)' }),
        traffic_allocation: Type.Number(),
        blocked: Type.Boolean(),
      }),
    ),
    srm: SrmSchema,
  },
  { title: 'ExperimentStatus' },
);
export type ExperimentStatusReport = Static<typeof ExperimentStatusSchema>;
