/**
 * Performance gates (spec, Performance gates): a variant beyond a threshold is blocked.
 * Verdicts are three-valued: a gate cannot pass or fail on too few users or no data.
 */
import { DEFAULT_GATE_THRESHOLDS } from './experiment-defaults.js';
import type { GateThresholds } from './experiment.schema.js';

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
export const GATE_DEFINITIONS: Record<GateName, { value: keyof GateVariantInput; comparator: Comparator }> = {
  max_response_time_p95: { value: 'response_time_p95', comparator: '<=' },
  min_click_through_rate: { value: 'click_through_rate', comparator: '>=' },
  max_error_rate: { value: 'error_rate', comparator: '<=' },
  min_user_satisfaction: { value: 'user_satisfaction', comparator: '>=' },
};

/** One variant's figures; a missing or null figure means no data for that gate. */
export interface GateVariantInput {
  name: string;
  users: number;
  response_time_p95?: number | null | undefined;
  click_through_rate?: number | null | undefined;
  error_rate?: number | null | undefined;
  user_satisfaction?: number | null | undefined;
}

export const GATE_VERDICTS = ['pass', 'fail', 'inconclusive'] as const;
export type GateVerdict = (typeof GATE_VERDICTS)[number];

/** Why a gate is inconclusive: no figure for it, or fewer users than minimum_sample_size. */
export const INCONCLUSIVE_REASONS = ['no data', 'underpowered'] as const;
export type InconclusiveReason = (typeof INCONCLUSIVE_REASONS)[number];

export interface GateResult {
  variant: string;
  gate: GateName;
  value: number | null;
  threshold: number;
  comparator: Comparator;
  verdict: GateVerdict;
  reason?: InconclusiveReason;
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

/** One gate on one variant: no data ⇒ inconclusive; users < minimum ⇒ inconclusive; else value vs threshold. */
export function evaluateGate(variant: GateVariantInput, gate: GateName, threshold: number, minimumSampleSize: number): GateResult {
  const { value: field, comparator } = GATE_DEFINITIONS[gate];
  const raw = variant[field];
  const value = typeof raw === 'number' && Number.isFinite(raw) ? raw : null;
  const base = { variant: variant.name, gate, value, threshold, comparator };
  if (value === null) return { ...base, verdict: 'inconclusive', reason: 'no data' };
  if (variant.users < minimumSampleSize) return { ...base, verdict: 'inconclusive', reason: 'underpowered' };
  const passes = comparator === '<=' ? value <= threshold : value >= threshold;
  return { ...base, verdict: passes ? 'pass' : 'fail' };
}

/** Every variant × gate, and the overall verdict: fail if any gate fails or SRM; else inconclusive if any; else pass. */
export function evaluateGates(input: GateEvaluationInput): GateEvaluation {
  const thresholds = resolveThresholds(input.thresholds);
  const gates = input.only ?? GATE_NAMES;
  const results = input.variants.flatMap((variant) =>
    gates.map((gate) => evaluateGate(variant, gate, thresholds[gate], input.minimumSampleSize)),
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
