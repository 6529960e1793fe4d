/**
 * Metric roles and guardrails (issue 13). An experiment names one primary metric — its
 * decision is drawn from that metric alone — and guardrail metrics, each tested ONE-SIDED for
 * harm (HARM_DIRECTIONS: bounce_rate harms when it rises, every other metric when it falls),
 * Holm-corrected across the guardrail family only (every guardrail metric × every treatment).
 * Every other metric is `exploratory`: its numbers are reported, it decides nothing.
 *
 * One-sided tests, with d = treatment − control, s = +1 when the harmful direction is an
 * increase and −1 when it is a decrease, and d_h = s·d (positive = harmful):
 * - fixed horizon: z = d_h / SE, p = 1 − Φ(z); the bound at level γ is d − s·Φ⁻¹(1 − γ)·SE
 *   (the lower bound of d when harm is an increase, the upper bound when it is a decrease);
 * - sequential: the one-sided bound is the same side of the two-sided confidence sequence at
 *   level γ, d − s·h(γ) (sequential.ts), and p = the always-valid p-value when d_h > 0, else 1.
 *   Crossing one side of the two-sided sequence is at most as likely as crossing either, so
 *   the guarantee holds at any number of reads (conservatively: it spends γ on one side).
 * In both, p < γ exactly when the bound lies on the harmful side of 0, so Holm's decision
 * (adjusted p < α) and the bound at the Holm-consistent level (holm.ts) always agree.
 */
import { normalQuantile, normalSf } from './distributions.js';
import { holmAdjust, holmIntervalAlphas } from './holm.js';
import { HARM_DIRECTIONS, type HarmDirection, type MetricName } from '../metrics.js';
import type { TestMethod } from './sequential.js';

export const METRIC_ROLES = ['primary', 'guardrail', 'exploratory'] as const;
export type MetricRole = (typeof METRIC_ROLES)[number];

/** The multiple-testing correction across the guardrail family. */
export const GUARDRAIL_CORRECTION = 'holm';

/** A one-sided test of harm: p from the harmful part of the difference, the bound's distance from d at level γ. */
export interface OneSidedTest {
  pValue(harmfulDifference: number, se: number, n: number): number;
  halfWidth(se: number, n: number, gamma: number): number;
}

/** Fixed horizon: p = 1 − Φ(d_h/SE), bound distance Φ⁻¹(1 − γ)·SE. */
export const FIXED_ONE_SIDED: OneSidedTest = {
  pValue: (harmful, se) => normalSf(harmful / se),
  halfWidth: (se, _n, gamma) => normalQuantile(1 - gamma) * se,
};

/** Sequential (conservative): the two-sided always-valid p when d_h > 0 (else 1), one side of the level-γ confidence sequence. */
export function sequentialOneSided(method: TestMethod): OneSidedTest {
  return {
    pValue: (harmful, se, n) => (harmful > 0 ? method.pValue(harmful, se, n) : 1),
    halfWidth: (se, n, gamma) => method.halfWidth(se, n, gamma),
  };
}

/** What a guardrail test needs of one treatment-vs-control comparison. */
export interface GuardrailInput {
  metric: MetricName;
  variant: string;
  control: string;
  difference: number | null;
  standard_error: number | null;
  /** Users in the two variants compared (the sequential method's n). */
  n: number;
  /** An arm has fewer than MINIMUM_METRIC_UNITS of the metric's denominator: no verdict (like underpowered). */
  sparse?: boolean;
}

/** One guardrail metric for one treatment: the one-sided harm test, corrected across the guardrail family. */
export interface GuardrailResult {
  metric: MetricName;
  variant: string;
  control: string;
  harm_direction: HarmDirection;
  difference: number | null;
  /** One-sided p-value for harm, unadjusted; null without a test. */
  p_value: number | null;
  /** Holm-adjusted over every guardrail metric × treatment. */
  adjusted_p_value: number | null;
  /** One-sided bound of the difference at the Holm-consistent level: harm is detected exactly when it is on the harmful side of 0. */
  harm_bound: number | null;
  /** The one-sided level γ of harm_bound. */
  bound_level: number | null;
  correction: typeof GUARDRAIL_CORRECTION;
  harm_detected: boolean;
  /** Harm detected before minimum_sample_size users, on the always-valid test (a decisive harm); harm_bound is its bound. */
  early?: boolean;
}

/** +1 when the harmful direction is an increase, −1 when a decrease. */
export function harmSign(direction: HarmDirection): 1 | -1 {
  return direction === 'increase' ? 1 : -1;
}

/**
 * The guardrail family's one-sided harm tests, Holm-corrected across all of them; nothing is
 * flagged when underpowered (decisions.md: no verdicts below the minimum) or for a sparse
 * input (too few of the metric's units), the p-values stay.
 */
export function guardrailResults(
  inputs: readonly GuardrailInput[],
  alpha: number,
  test: OneSidedTest,
  underpowered: boolean,
  earlyTest?: OneSidedTest,
): GuardrailResult[] {
  const pValuesBy = (by: OneSidedTest) =>
    inputs.map((input) => {
      if (input.difference === null || input.standard_error === null || !(input.standard_error > 0)) return null;
      return by.pValue(harmSign(HARM_DIRECTIONS[input.metric]) * input.difference, input.standard_error, input.n);
    });
  const pValues = pValuesBy(test);
  const adjusted = holmAdjust(pValues);
  const gammas = holmIntervalAlphas(pValues, alpha);
  const early = underpowered && earlyTest !== undefined ? earlyDecisions(inputs, pValuesBy(earlyTest), alpha, earlyTest) : undefined;
  return inputs.map((input, i) => {
    const direction = HARM_DIRECTIONS[input.metric];
    const adjustedP = adjusted[i] ?? null;
    const gamma = gammas[i] ?? null;
    const undecided = underpowered || input.sparse === true;
    const detected = !undecided && adjustedP !== null && adjustedP < alpha;
    const decidedEarly = early?.[i];
    return {
      metric: input.metric,
      variant: input.variant,
      control: input.control,
      harm_direction: direction,
      difference: input.difference,
      p_value: pValues[i] ?? null,
      adjusted_p_value: adjustedP,
      harm_bound: decidedEarly?.bound ?? (undecided ? null : harmBound(input, direction, gamma, detected, test)),
      bound_level: decidedEarly?.level ?? (undecided ? null : gamma),
      correction: GUARDRAIL_CORRECTION,
      harm_detected: detected || decidedEarly !== undefined,
      ...(decidedEarly === undefined ? {} : { early: true }),
    };
  });
}

/**
 * Before the users minimum, harm decided on the always-valid one-sided test (the sequential
 * method's, whatever the experiment's): Holm over the family of its p-values; an input is decided
 * when its adjusted p < α and it has its metric's minimum of units. Its guarantee is the
 * sequential one: under no harm, flagged at most α over all reads together.
 */
function earlyDecisions(
  inputs: readonly GuardrailInput[],
  pValues: (number | null)[],
  alpha: number,
  test: OneSidedTest,
): ({ bound: number | null; level: number | null } | undefined)[] {
  const adjusted = holmAdjust(pValues);
  const gammas = holmIntervalAlphas(pValues, alpha);
  return inputs.map((input, i) => {
    const p = adjusted[i] ?? null;
    if (input.sparse === true || p === null || !(p < alpha)) return undefined;
    const gamma = gammas[i] ?? null;
    return { bound: harmBound(input, HARM_DIRECTIONS[input.metric], gamma, true, test), level: gamma };
  });
}

/**
 * d − s·w with w the one-sided distance at γ; kept strictly on the harmful side when harm is
 * detected and off it otherwise, so rounding at the exact boundary cannot split verdict and bound.
 */
function harmBound(input: GuardrailInput, direction: HarmDirection, gamma: number | null, detected: boolean, test: OneSidedTest) {
  const { difference: d, standard_error: se } = input;
  if (d === null || se === null || gamma === null || !(se > 0)) return null;
  const sign = harmSign(direction);
  const harmful = sign * d;
  const raw = test.halfWidth(se, input.n, gamma);
  const width = detected ? Math.min(raw, harmful * (1 - Number.EPSILON)) : harmful > 0 ? Math.max(raw, harmful) : raw;
  return d - sign * width;
}

/** The role of a metric given the primary and the guardrails (the primary wins when it is both). */
export function metricRole(metric: MetricName, primary: MetricName, guardrails: readonly MetricName[]): MetricRole {
  if (metric === primary) return 'primary';
  return guardrails.includes(metric) ? 'guardrail' : 'exploratory';
}
