/**
 * Performance gates (spec, Performance gates): a variant beyond a threshold is blocked.
 * Verdicts are three-valued: a gate cannot pass or fail on too few users or no data.
 *
 * Two rules judge a gate (GATE_RULES):
 * - `bounds` (the default): the variant's interval for the figure (gate-intervals.ts) must lie
 *   wholly on the passing side — CTR's and satisfaction's lower bound ≥ the minimum, the error
 *   rate's and p95's upper bound ≤ the maximum — to pass; wholly on the wrong side to fail;
 *   otherwise the gate is inconclusive ('interval spans threshold'). A figure without an
 *   interval (too few units to estimate one) is inconclusive ('no interval').
 * - `point`: the spec's rule, the point value against the threshold.
 * Both need minimum_sample_size users in the variant to pass, and MINIMUM_METRIC_UNITS of the
 * figure's own units to decide at all; a decisive failure on the always-valid interval fails
 * before the users minimum (evaluateGate).
 */
import { DEFAULT_GATE_RULE, DEFAULT_GATE_THRESHOLDS, type GateRule } from '../experiment-defaults.js';
import type { GateThresholds } from '../experiment.schema.js';
import type { GateInterval } from './gate-intervals.js';
import { MINIMUM_METRIC_UNITS } from '../metrics.js';

/** Threshold overrides as callers hold them: a field that is undefined keeps its default. */
export type GateThresholdOverrides = { [K in keyof GateThresholds]?: GateThresholds[K] | undefined };

export const GATE_NAMES = ['max_response_time_p95', 'min_click_through_rate', 'max_error_rate', 'min_user_satisfaction'] as const;
export type GateName = (typeof GATE_NAMES)[number];

/** Short names accepted by `recsvc gates check --only`. */
export const GATE_SHORT_NAMES = {
  p95: 'max_response_time_p95',
  ctr: 'min_click_through_rate',
  error_rate: 'max_error_rate',
  satisfaction: 'min_user_satisfaction',
} as const satisfies Record<string, GateName>;
export type GateShortName = keyof typeof GATE_SHORT_NAMES;

/** What a variant's value must be relative to the threshold to pass. */
export const COMPARATORS = ['<=', '>='] as const;
export type Comparator = (typeof COMPARATORS)[number];

/** The per-variant figure each gate reads, and how it compares. */
export const GATE_DEFINITIONS: Record<GateName, { value: GateFigure; comparator: Comparator }> = {
  max_response_time_p95: { value: 'response_time_p95', comparator: '<=' },
  min_click_through_rate: { value: 'click_through_rate', comparator: '>=' },
  max_error_rate: { value: 'error_rate', comparator: '<=' },
  min_user_satisfaction: { value: 'user_satisfaction', comparator: '>=' },
};

/** The unit a gate's value, interval and threshold are shown in (rates are plain ratios between 0 and 1). */
export const GATE_UNITS: Record<GateName, string> = {
  max_response_time_p95: 'ms',
  min_click_through_rate: '',
  max_error_rate: '',
  min_user_satisfaction: '',
};

// The gate rules' names are declared with the other defaults (a leaf the creation schema reads too).
export { DEFAULT_GATE_RULE, GATE_RULES, isGateRule, type GateRule } from '../experiment-defaults.js';

/** The per-variant figures a gate reads. */
export type GateFigure = 'response_time_p95' | 'click_through_rate' | 'error_rate' | 'user_satisfaction';

/** One variant's figures; a missing or null figure means no data for that gate. */
export interface GateVariantInput {
  name: string;
  users: number;
  response_time_p95?: number | null | undefined;
  click_through_rate?: number | null | undefined;
  error_rate?: number | null | undefined;
  user_satisfaction?: number | null | undefined;
  /** Each figure's interval (gate-intervals.ts), which the bounds rule judges; missing: no interval. */
  intervals?: Partial<Record<GateFigure, GateInterval | null>> | undefined;
  /**
   * Each figure's always-valid interval (the sequential method's, whatever the experiment's),
   * which may fail a gate before minimum_sample_size users (a decisive failure); missing: none.
   */
  early_intervals?: Partial<Record<GateFigure, GateInterval | null>> | undefined;
  /** Each figure's denominator units (impressions, answers, requests); below MINIMUM_METRIC_UNITS no verdict. Missing: not checked. */
  units?: Partial<Record<GateFigure, number>> | undefined;
}

export const GATE_VERDICTS = ['pass', 'fail', 'inconclusive'] as const;
export type GateVerdict = (typeof GATE_VERDICTS)[number];

/**
 * Why a gate is inconclusive: no figure for it, fewer users than minimum_sample_size, fewer of
 * the figure's own units than MINIMUM_METRIC_UNITS (answers for satisfaction, impressions,
 * requests), or (bounds rule) no interval for the figure or an interval with the threshold inside it.
 */
export const INCONCLUSIVE_REASONS = ['no data', 'underpowered', 'too few units', 'no interval', 'interval spans threshold'] as const;
export type InconclusiveReason = (typeof INCONCLUSIVE_REASONS)[number];

export interface GateResult {
  variant: string;
  gate: GateName;
  value: number | null;
  threshold: number;
  comparator: Comparator;
  /** The interval the bounds rule judged (null ends: unbounded); absent under the point rule or without one. */
  ci_low?: number | null;
  ci_high?: number | null;
  rule: GateRule;
  verdict: GateVerdict;
  reason?: InconclusiveReason;
  /** The figure's denominator units, when known. */
  units?: number;
  /** A decisive failure before minimum_sample_size users, on the always-valid interval (ci_low/ci_high are that interval). */
  early?: boolean;
}

export interface GateEvaluation {
  verdict: GateVerdict;
  srm_mismatch: boolean;
  results: GateResult[];
}

export interface GateEvaluationInput {
  variants: readonly GateVariantInput[];
  minimumSampleSize: number;
  thresholds?: GateThresholdOverrides | undefined;
  srm?: { mismatch: boolean };
  only?: readonly GateName[];
  /** DEFAULT_GATE_RULE when absent. */
  rule?: GateRule | undefined;
}

/** The gate a CLI name refers to (full or short name), or undefined. */
export function resolveGateName(name: string): GateName | undefined {
  if ((GATE_NAMES as readonly string[]).includes(name)) return name as GateName;
  return Object.hasOwn(GATE_SHORT_NAMES, name) ? GATE_SHORT_NAMES[name as GateShortName] : undefined;
}

/** Defaults overridden by whichever thresholds are given. */
export function resolveThresholds(thresholds: GateThresholdOverrides = {}): Required<GateThresholds> {
  const defined = Object.entries(thresholds).filter(([, value]) => value !== undefined);
  return { ...DEFAULT_GATE_THRESHOLDS, ...Object.fromEntries(defined) };
}

/**
 * One gate on one variant: no data ⇒ inconclusive; fewer than minimum_sample_size users ⇒
 * inconclusive, unless (bounds rule) the figure's always-valid interval already lies wholly on
 * the wrong side: a decisive failure, `fail` with `early` (a pass always waits for the minimum);
 * fewer than MINIMUM_METRIC_UNITS of the figure's units ⇒ inconclusive, early failure included;
 * else the rule: point compares the value, bounds the interval (judgeInterval).
 */
export function evaluateGate(
  variant: GateVariantInput,
  gate: GateName,
  threshold: number,
  minimumSampleSize: number,
  rule: GateRule = DEFAULT_GATE_RULE,
): GateResult {
  const { value: field, comparator } = GATE_DEFINITIONS[gate];
  const raw = variant[field];
  const value = typeof raw === 'number' && Number.isFinite(raw) ? raw : null;
  const interval = rule === 'bounds' ? variant.intervals?.[field] : undefined;
  const bounds = interval ? { ci_low: interval.low, ci_high: interval.high } : {};
  const units = variant.units?.[field];
  const base = { variant: variant.name, gate, value, threshold, comparator, ...bounds, rule, ...(units === undefined ? {} : { units }) };
  if (value === null) return { ...base, verdict: 'inconclusive', reason: 'no data' };
  const sparse = units !== undefined && units < MINIMUM_METRIC_UNITS;
  if (variant.users < minimumSampleSize) {
    const early = rule === 'bounds' && !sparse ? variant.early_intervals?.[field] : undefined;
    if (early && judgeInterval(early, threshold, comparator) === 'fail')
      return { ...base, ci_low: early.low, ci_high: early.high, verdict: 'fail', early: true };
    return { ...base, verdict: 'inconclusive', reason: 'underpowered' };
  }
  if (sparse) return { ...base, verdict: 'inconclusive', reason: 'too few units' };
  if (rule === 'point') {
    const passes = comparator === '<=' ? value <= threshold : value >= threshold;
    return { ...base, verdict: passes ? 'pass' : 'fail' };
  }
  if (!interval) return { ...base, verdict: 'inconclusive', reason: 'no interval' };
  const verdict = judgeInterval(interval, threshold, comparator);
  return verdict === 'inconclusive' ? { ...base, verdict, reason: 'interval spans threshold' } : { ...base, verdict };
}

/**
 * The bounds rule: '>=' passes when low ≥ threshold and fails when high < threshold; '<='
 * passes when high ≤ threshold and fails when low > threshold (an unbounded end never
 * clears); anything else is inconclusive. A boundary value passes, as in the point rule.
 */
export function judgeInterval(interval: GateInterval, threshold: number, comparator: Comparator): GateVerdict {
  const low = interval.low ?? -Infinity;
  const high = interval.high ?? Infinity;
  if (comparator === '>=') return low >= threshold ? 'pass' : high < threshold ? 'fail' : 'inconclusive';
  return high <= threshold ? 'pass' : low > threshold ? 'fail' : 'inconclusive';
}

/** Every variant × gate, and the overall verdict: fail if any gate fails or SRM; else inconclusive if any; else pass. */
export function evaluateGates(input: GateEvaluationInput): GateEvaluation {
  const thresholds = resolveThresholds(input.thresholds);
  const gates = input.only ?? GATE_NAMES;
  const results = input.variants.flatMap((variant) =>
    gates.map((gate) => evaluateGate(variant, gate, thresholds[gate], input.minimumSampleSize, input.rule)),
  );
  const srmMismatch = input.srm?.mismatch ?? false;
  const verdict = srmMismatch ? 'fail' : combineVerdicts(results.map((result) => result.verdict));
  return { verdict, srm_mismatch: srmMismatch, results };
}

/** The verdict over several gate results: fail beats inconclusive beats pass (none at all: pass). */
export function combineVerdicts(verdicts: Iterable<GateVerdict>): GateVerdict {
  const seen = new Set(verdicts);
  return seen.has('fail') ? 'fail' : seen.has('inconclusive') ? 'inconclusive' : 'pass';
}

/** One variant's gate results and their combined verdict (combineVerdicts). */
export function variantGates(evaluation: GateEvaluation, variant: string): { verdict: GateVerdict; results: GateResult[] } {
  const results = evaluation.results.filter((result) => result.variant === variant);
  return { verdict: combineVerdicts(results.map((result) => result.verdict)), results };
}
