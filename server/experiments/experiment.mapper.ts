/** Maps experiment rows to the domain/wire shape (rows never leave the feature's services). */
import type { AlgorithmConfig, GateThresholds, RecordedAnalysisMethod } from '../../src/experiments/experiment.schema.js';
import type { Experiment, Variant } from '../../src/experiments/experiment-response.schema.js';
import { experimentTypeOf, type RecordedExperimentType } from '../../src/experiments/interleaving/experiment-type.js';
import { DEFAULT_GATE_RULE, isGateRule, resolveThresholds } from '../../src/experiments/gates/gates.js';
import { DEFAULT_GUARDRAIL_METRICS } from '../../src/experiments/metrics.js';
import { isAnalysisMethod, UNRECORDED_ANALYSIS_METHOD } from '../../src/experiments/stats/sequential.js';
import type { ExperimentStatus } from '../../src/experiments/state-machine.js';
import type { ExperimentRow, VariantRow } from './experiment.repository.js';

/** A variant row as the wire's Variant. */
export function toVariant(row: VariantRow): Variant {
  return {
    name: row.name,
    description: row.description,
    traffic_allocation: row.traffic_allocation,
    algorithm_config: JSON.parse(row.algorithm_config) as AlgorithmConfig,
    is_control: row.is_control === 1,
    blocked: row.blocked === 1,
    blocked_reason: row.blocked_reason,
  };
}

/** An experiment as the service knows it: the wire's Experiment and its recorded analysis method. */
export type StoredExperiment = Experiment & RecordedAnalysisMethod & RecordedExperimentType;

/** An experiment row and its variant rows as the wire's Experiment (with its analysis method). */
export function toExperiment(row: ExperimentRow, variants: readonly VariantRow[]): StoredExperiment {
  const gates = row.gates === null ? {} : (JSON.parse(row.gates) as GateThresholds);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status as ExperimentStatus,
    traffic_percentage: row.traffic_percentage,
    minimum_sample_size: row.minimum_sample_size,
    confidence_level: row.confidence_level,
    primary_metric: row.primary_metric,
    guardrail_metrics: guardrailsOf(row),
    gate_rule: isGateRule(row.gate_rule) ? row.gate_rule : DEFAULT_GATE_RULE,
    analysis_method: isAnalysisMethod(row.analysis_method) ? row.analysis_method : UNRECORDED_ANALYSIS_METHOD,
    type: experimentTypeOf(row),
    gates: resolveThresholds(gates),
    variants: variants.filter((v) => v.experiment_id === row.id).map(toVariant),
    created_at: row.created_at,
    updated_at: row.updated_at,
    started_at: row.started_at,
    ended_at: row.ended_at,
  };
}

/** The stored guardrails; an experiment from before them (null) reads as the defaults without its primary metric. */
function guardrailsOf(row: ExperimentRow): string[] {
  if (row.guardrail_metrics !== null) return JSON.parse(row.guardrail_metrics) as string[];
  return DEFAULT_GUARDRAIL_METRICS.filter((metric) => metric !== row.primary_metric);
}
