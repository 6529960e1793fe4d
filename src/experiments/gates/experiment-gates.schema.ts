/**
 * Shape of `GET /api/v1/analytics/experiments/{id}/gates`: every variant against every
 * gate (gates.ts), with the overall verdict (SRM makes it fail), the rule that judged them and
 * each figure's interval (gate-intervals.ts).
 */
import { Type, type Static } from '@sinclair/typebox';
import { LiteralUnion } from '../../schemas/common.schema.js';
import { ResolvedGateThresholdsSchema, SrmSchema } from '../experiment-response.schema.js';
import { COMPARATORS, GATE_RULES, GATE_VERDICTS, INCONCLUSIVE_REASONS } from './gates.js';
import { MINIMUM_METRIC_UNITS } from '../metrics.js';
import { ANALYSIS_METHODS } from '../stats/sequential.js';

const Verdict = LiteralUnion(GATE_VERDICTS);
const Bound = (description: string) => Type.Optional(Type.Union([Type.Number(), Type.Null()], { description }));

export const GateRuleSchema = LiteralUnion(GATE_RULES, {
  description:
    "bounds: pass only when the figure's whole interval clears the threshold, fail when it lies wholly on the wrong side, else inconclusive; point: the value against the threshold",
});

export const GateResultSchema = Type.Object({
  gate: Type.String(),
  value: Type.Union([Type.Number(), Type.Null()]),
  threshold: Type.Number(),
  comparator: LiteralUnion(COMPARATORS),
  ci_low: Bound('Lower end of the interval judged by the bounds rule; null: unbounded'),
  ci_high: Bound('Upper end of the interval judged by the bounds rule; null: unbounded (p95 beyond the last histogram bucket)'),
  rule: Type.Optional(GateRuleSchema),
  verdict: Verdict,
  reason: Type.Optional(LiteralUnion(INCONCLUSIVE_REASONS)),
  units: Type.Optional(
    Type.Number({
      description: `The figure's denominator units (impressions, answers, requests); below ${MINIMUM_METRIC_UNITS} the gate is inconclusive`,
    }),
  ),
  early: Type.Optional(
    Type.Boolean({
      description:
        'A decisive failure before minimum_sample_size users: the always-valid interval (ci_low, ci_high) lies wholly on the wrong side',
    }),
  ),
});

export const VariantGatesSchema = Type.Object({
  name: Type.String(),
  is_control: Type.Boolean(),
  blocked: Type.Boolean(),
  users: Type.Integer(),
  verdict: Verdict,
  gates: Type.Array(GateResultSchema),
});

export const ExperimentGatesSchema = Type.Object(
  {
    experiment_id: Type.Integer(),
    verdict: Verdict,
    rule: Type.Optional(GateRuleSchema),
    interval: Type.Optional(
      Type.Object(
        {
          method: LiteralUnion(ANALYSIS_METHODS),
          confidence_level: Type.Number(),
        },
        { description: 'How the intervals were computed: fixed-horizon, or confidence sequences valid at every read (sequential)' },
      ),
    ),
    srm: SrmSchema,
    thresholds: ResolvedGateThresholdsSchema,
    minimum_sample_size: Type.Integer(),
    variants: Type.Array(VariantGatesSchema),
  },
  { title: 'ExperimentGates' },
);
export type ExperimentGates = Static<typeof ExperimentGatesSchema>;
