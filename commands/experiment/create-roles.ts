/**
 * `experiment create`'s --primary-metric, --guardrail and --gate-rule: metric names or aliases
 * (ctr, satisfaction) resolved with src's one vocabulary, applied over the body from a file,
 * flags or prompts.
 */
import type { Experiment } from '../../src/experiments/experiment-response.schema.js';
import type { ExperimentCreate } from '../../src/experiments/experiment.schema.js';
import { GATE_NAMES, isGateRule } from '../../src/experiments/gates/gates.js';
import { METRIC_NAMES, resolveMetricName, type MetricName } from '../../src/experiments/metrics.js';
import { usageError } from '../support/cli-error.js';
import type { CreateOptions } from './create.options.js';

/** Figures the gates judge per variant: named as guardrails, they get a pointer to the gates. */
const GATE_FIGURES = new Set(['error_rate', 'p95', 'p95_latency_ms', 'response_time_p95', 'latency', ...GATE_NAMES]);

/** A metric name or alias, or a usage error naming the flag. */
function metricOf(flag: string, name: string): MetricName {
  const metric = resolveMetricName(name);
  if (metric !== undefined) return metric;
  const hint = GATE_FIGURES.has(name.trim())
    ? `; ${name.trim()} is a per-variant performance figure judged by the gates (recsvc gates check), not a per-user metric`
    : '';
  throw usageError(`${flag}: unknown metric "${name.trim()}" (expected one of ${METRIC_NAMES.join(', ')}, or ctr, satisfaction)${hint}`);
}

/** The body with the role flags applied (each overrides the same field of a file). */
export function withRoleFlags(body: ExperimentCreate, options: CreateOptions): ExperimentCreate {
  const next: ExperimentCreate = { ...body };
  if (options.primaryMetric !== undefined) {
    const primary = metricOf('--primary-metric', options.primaryMetric);
    if (options.metric !== undefined && options.metric !== primary)
      throw usageError(`--metric ${options.metric} and --primary-metric ${options.primaryMetric} disagree: give one`);
    next.primary_metric = primary;
  }
  if (options.guardrail !== undefined) {
    const names = options.guardrail.flatMap((value) => value.split(',')).map((name) => name.trim());
    next.guardrail_metrics =
      names.length === 1 && names[0] === 'none' ? [] : names.filter((n) => n !== '').map((n) => metricOf('--guardrail', n));
  }
  if (options.gateRule !== undefined) {
    if (!isGateRule(options.gateRule)) throw usageError(`--gate-rule: expected bounds or point (got "${options.gateRule}")`);
    next.gate_rule = options.gateRule;
  }
  return next;
}

/** "primary metric: ctr; guardrails: a, b (one-sided for harm); gate rule: bounds" for stderr after creating. */
export function rolesLine(experiment: Experiment): string {
  const guardrails = experiment.guardrail_metrics ?? [];
  const listed = guardrails.length === 0 ? 'none' : `${guardrails.join(', ')} (one-sided for harm, Holm-corrected)`;
  return `primary metric: ${experiment.primary_metric}; guardrails: ${listed}; gate rule: ${experiment.gate_rule ?? 'bounds'}`;
}
