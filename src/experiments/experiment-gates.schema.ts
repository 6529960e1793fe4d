/**
 * Shape of `GET /api/v1/analytics/experiments/{id}/gates`: every variant against every
 * gate (gates.ts), with the overall verdict (SRM makes it fail).
 */
import { Type, type Static } from '@sinclair/typebox';
import { LiteralUnion } from '../schemas/common.schema.js';
import { ResolvedGateThresholdsSchema, SrmSchema } from './experiment-response.schema.js';
import { COMPARATORS, GATE_VERDICTS, INCONCLUSIVE_REASONS } from './gates.js';

const Verdict = LiteralUnion(GATE_VERDICTS);

export const GateResultSchema = Type.Object({
  gate: Type.String(),
  value: Type.Union([Type.Number(), Type.Null()]),
  threshold: Type.Number(),
  comparator: LiteralUnion(COMPARATORS),
  verdict: Verdict,
  reason: Type.Optional(LiteralUnion(INCONCLUSIVE_REASONS)),
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
    srm: SrmSchema,
    thresholds: ResolvedGateThresholdsSchema,
    minimum_sample_size: Type.Integer(),
    variants: Type.Array(VariantGatesSchema),
  },
  { title: 'ExperimentGates' },
);
export type ExperimentGates = Static<typeof ExperimentGatesSchema>;
