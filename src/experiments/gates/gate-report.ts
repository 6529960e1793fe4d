/**
 * The body of `GET /api/v1/analytics/experiments/{id}/gates` from an experiment's data: every
 * variant against every gate by the chosen rule (default bounds), with the intervals computed at
 * the experiment's confidence level by its analysis method (gate-intervals.ts), and SRM.
 * Pure: the server feeds it what it read from the database.
 */
import type { ExperimentGates } from './experiment-gates.schema.js';
import type { Experiment } from '../experiment-response.schema.js';
import { gateInputOptionsFor, gateInputsFromData, type GatePerformanceRecord } from './gate-inputs.js';
import { DEFAULT_GATE_RULE, evaluateGates, variantGates, type GateRule } from './gates.js';
import { sampleRatioMismatch } from '../stats/srm.js';
import type { VariantAccumulator } from '../stats/variant-accumulator.js';

export interface GateReportOptions {
  /** DEFAULT_GATE_RULE when absent (a request's `?rule=`). */
  rule?: GateRule | undefined;
  /** Per variant: latency counts per bucket index (else each performance record's latency_histogram; neither: p95 has no interval). */
  latencyHistograms?: ReadonlyMap<string, ReadonlyMap<number, number>> | undefined;
}

/** Every variant against every gate with the experiment's thresholds; SRM fails the experiment. */
export function experimentGatesReport(
  experiment: Experiment,
  accumulators: ReadonlyMap<string, VariantAccumulator>,
  performance: readonly GatePerformanceRecord[],
  options: GateReportOptions = {},
): ExperimentGates {
  const names = experiment.variants.map((v) => v.name);
  const intervalOptions = gateInputOptionsFor(experiment, options.latencyHistograms);
  const inputs = gateInputsFromData(names, accumulators, performance, intervalOptions);
  const srm = sampleRatioMismatch(
    inputs.map((i) => i.users),
    experiment.variants.map((v) => v.traffic_allocation),
  );
  const rule = options.rule ?? DEFAULT_GATE_RULE;
  const evaluation = evaluateGates({
    variants: inputs,
    minimumSampleSize: experiment.minimum_sample_size,
    thresholds: experiment.gates,
    srm,
    rule,
  });
  return {
    experiment_id: experiment.id,
    verdict: evaluation.verdict,
    rule,
    interval: { method: intervalOptions.method, confidence_level: intervalOptions.confidenceLevel },
    srm,
    thresholds: experiment.gates,
    minimum_sample_size: experiment.minimum_sample_size,
    variants: experiment.variants.map((v, i) => {
      const { verdict, results } = variantGates(evaluation, v.name);
      return {
        name: v.name,
        is_control: v.is_control,
        blocked: v.blocked,
        users: inputs[i]?.users ?? 0,
        verdict,
        gates: results.map(({ variant: _variant, ...rest }) => rest),
      };
    }),
  };
}
