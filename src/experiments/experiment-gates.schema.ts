/**
 * Shape of `GET /api/v1/analytics/experiments/{id}/gates`: every variant against every
 * gate (gates.ts), with the overall verdict (SRM makes it fail).
 */
import { Type, type Static } from '@sinclair/typebox';
import { ResolvedGateThresholdsSchema, SrmSchema } from './experiment-response.schema.js';

const Verdict = Type.Union([Type.Literal('pass'), Type.Literal('fail'), Type.Literal('inconclusive')]);

export const GateResultSchema = Type.Object({
  gate: Type.String(),
  value: Type.Union([Type.Number(), Type.Null()]),
  threshold: Type.Number(),
  comparator: Type.Union([Type.Literal('<='), Type.Literal('>=')]),
  verdict: Verdict,
  reason: Type.Optional(Type.Union([Type.Literal('no data'), Type.Literal('underpowered')])),
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
