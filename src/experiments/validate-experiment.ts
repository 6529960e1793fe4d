/**
 * Business rules of experiment creation (decisions.md, Experiments). Each rule names
 * the exact field at fault. Single-field validators return a message or undefined,
 * so the CLI's interactive prompts reuse them as they are.
 */
import { ValidationError } from '../errors.js';
import type { ExperimentCreate, Weights } from './experiment.schema.js';
import { experimentTypeChecks } from './interleaving/experiment-type.js';
import { GATE_RULES, isGateRule } from './gates/gates.js';
import { DEFAULT_PRIMARY_METRIC, METRIC_NAMES, isMetricName } from './metrics.js';
import {
  validateAllocation,
  validateAllocationSum,
  validateConfidenceLevel,
  validateMinimumSampleSize,
  validateVariantName,
} from './design-rules.js';

export { validateAllocation, validateAllocationSum, validateConfidenceLevel, validateMinimumSampleSize, validateVariantName };

/** One rule violation: the dotted/indexed field path and a message for a human. */
export interface FieldIssue {
  field: string;
  message: string;
}

/** The spec's four weights, each required. */
export const WEIGHT_KEYS = ['author_preference', 'content_engagement', 'recency', 'semantic_similarity'] as const;
/** The fifth weight (decisions.md): optional, absent means 0. */
export const OPTIONAL_WEIGHT_KEYS = ['collaborative'] as const;

/** The weights a config carries: the four, and the fifth when given. */
function presentWeightKeys(weights: Weights): Array<keyof Weights> {
  return [...WEIGHT_KEYS, ...OPTIONAL_WEIGHT_KEYS.filter((key) => weights[key] !== undefined)];
}
const WEIGHT_SUM_TOLERANCE = 1e-6;

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const show = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : String(value));

/** One ranking weight: a number in [0, 1]; `name` labels it in the message. */
export function validateWeight(value: unknown, name = 'weight'): string | undefined {
  if (!isNumber(value)) return `${name} must be a number (got ${show(value)})`;
  if (value < 0 || value > 1) return `${name} must be between 0 and 1 (got ${value})`;
  return undefined;
}

/** A variant's four (or five) weights: each in [0, 1], summing to 1.0 (within 1e-6). */
export function validateWeights(weights: Weights): string | undefined {
  for (const key of presentWeightKeys(weights)) {
    const issue = validateWeight(weights[key], `weight ${key}`);
    if (issue !== undefined) return issue;
  }
  return validateWeightSum(weights);
}

function validateWeightSum(weights: Weights): string | undefined {
  const keys = presentWeightKeys(weights);
  const sum = keys.reduce((total, key) => total + (weights[key] ?? 0), 0);
  if (Math.abs(sum - 1) > WEIGHT_SUM_TOLERANCE) {
    const terms = keys.map((key) => `${key} ${weights[key]}`).join(' + ');
    return `weights must add up to 1.0 (they add up to ${sum}: ${terms})`;
  }
  return undefined;
}

/** The optional semantic weight: a number in [0, 1]. */
export function validateSemanticWeight(value: unknown): string | undefined {
  if (!isNumber(value) || value < 0 || value > 1) return `semantic weight must be between 0 and 1 (got ${show(value)})`;
  return undefined;
}

/** The percentage of users enrolled: greater than 0 and at most 100. */
export function validateTrafficPercentage(value: unknown): string | undefined {
  if (!isNumber(value) || value <= 0 || value > 100) {
    return `traffic percentage must be greater than 0 and at most 100 (got ${show(value)})`;
  }
  return undefined;
}

type Check = [field: string, message: string | undefined];

function variantChecks(input: ExperimentCreate): Check[] {
  const checks: Check[] = [];
  const seen = new Set<string>();
  input.variants.forEach((variant, i) => {
    const at = `variants[${i}]`;
    const own = (message: string | undefined): string | undefined =>
      message === undefined ? undefined : `variant ${show(variant.name)}: ${message}`;
    checks.push([`${at}.name`, validateVariantName(variant.name)]);
    if (seen.has(variant.name)) checks.push([`${at}.name`, `variant name ${show(variant.name)} is used twice`]);
    seen.add(variant.name);
    checks.push([`${at}.traffic_allocation`, own(validateAllocation(variant.traffic_allocation))]);
    const config = variant.algorithm_config;
    const weightIssues = presentWeightKeys(config.weights).map((key): Check => [
      `${at}.algorithm_config.weights.${key}`,
      own(validateWeight(config.weights[key], `weight ${key}`)),
    ]);
    checks.push(...weightIssues);
    if (weightIssues.every(([, message]) => message === undefined)) {
      checks.push([`${at}.algorithm_config.weights`, own(validateWeightSum(config.weights))]);
    }
    if (config.semantic_weight !== undefined) {
      checks.push([`${at}.algorithm_config.semantic_weight`, own(validateSemanticWeight(config.semantic_weight))]);
    }
  });
  return checks;
}

function experimentChecks(input: ExperimentCreate): Check[] {
  const variants = input.variants;
  const controls = variants.filter((variant) => variant.is_control).length;
  const allocations = variants.map((variant) => variant.traffic_allocation);
  const checks: Check[] = [
    ['traffic_percentage', input.traffic_percentage === undefined ? undefined : validateTrafficPercentage(input.traffic_percentage)],
    ['confidence_level', input.confidence_level === undefined ? undefined : validateConfidenceLevel(input.confidence_level)],
    ['minimum_sample_size', input.minimum_sample_size === undefined ? undefined : validateMinimumSampleSize(input.minimum_sample_size)],
    ['variants', variants.length < 2 ? `an experiment needs at least two variants (got ${variants.length})` : undefined],
    ['variants', controls !== 1 ? `exactly one variant must have is_control: true (got ${controls})` : undefined],
    ...variantChecks(input),
  ];
  if (allocations.every((value) => validateAllocation(value) === undefined) && variants.length > 0) {
    checks.push(['variants', validateAllocationSum(allocations)]);
  }
  return checks;
}

function gateChecks(input: ExperimentCreate): Check[] {
  const gates = input.gates ?? {};
  const rate = (value: number | undefined, name: string): string | undefined =>
    value === undefined || (isNumber(value) && value >= 0 && value <= 1) ? undefined : `${name} must be between 0 and 1 (got ${value})`;
  const p95 = gates.max_response_time_p95;
  return [
    [
      'gates.max_response_time_p95',
      p95 === undefined || (isNumber(p95) && p95 > 0)
        ? undefined
        : `p95 response time threshold must be a positive number of milliseconds (got ${p95})`,
    ],
    ['gates.min_click_through_rate', rate(gates.min_click_through_rate, 'click-through rate threshold')],
    ['gates.max_error_rate', rate(gates.max_error_rate, 'error rate threshold')],
    ['gates.min_user_satisfaction', rate(gates.min_user_satisfaction, 'user satisfaction threshold')],
  ];
}

/**
 * The primary metric and the guardrails: known metric names, no guardrail twice, and the
 * primary never a guardrail (its decision is two-sided; a guardrail's test is one-sided).
 */
function metricChecks(input: ExperimentCreate): Check[] {
  const unknown = (value: unknown): string => `unknown metric ${show(value)} (expected one of ${METRIC_NAMES.join(', ')})`;
  const primary = input.primary_metric ?? DEFAULT_PRIMARY_METRIC;
  const checks: Check[] = [['primary_metric', isMetricName(primary) ? undefined : unknown(primary)]];
  const guardrails: unknown = input.guardrail_metrics;
  if (guardrails === undefined) return checks;
  if (!Array.isArray(guardrails)) return [...checks, ['guardrail_metrics', 'guardrail metrics must be a list of metric names']];
  const seen = new Set<unknown>();
  guardrails.forEach((metric: unknown, i) => {
    const at = `guardrail_metrics[${i}]`;
    if (!isMetricName(metric)) checks.push([at, unknown(metric)]);
    else if (metric === primary) checks.push([at, `${metric} is the primary metric: it cannot also be a guardrail`]);
    else if (seen.has(metric)) checks.push([at, `${metric} is listed twice`]);
    seen.add(metric);
  });
  return checks;
}

function gateRuleCheck(input: ExperimentCreate): Check[] {
  const rule: unknown = input.gate_rule;
  return [
    ['gate_rule', rule === undefined || isGateRule(rule) ? undefined : `gate rule must be ${GATE_RULES.join(' or ')} (got ${show(rule)})`],
  ];
}

/** Every violation of the creation rules, in field order; empty when the experiment is valid. */
export function validateExperiment(input: ExperimentCreate): FieldIssue[] {
  return [...experimentChecks(input), ...experimentTypeChecks(input), ...gateChecks(input), ...metricChecks(input), ...gateRuleCheck(input)]
    .filter((check): check is [string, string] => check[1] !== undefined)
    .map(([field, message]) => ({ field, message }));
}

/** Throws ValidationError (400, naming the field) for the first violation of the creation rules. */
export function assertValidExperiment(input: ExperimentCreate): void {
  const [first] = validateExperiment(input);
  if (first !== undefined) throw new ValidationError(first.message, first.field);
}
