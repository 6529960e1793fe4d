/**
 * The experiment analysis (decisions.md, Statistics), shared by the server and the CLI
 * so both report the same numbers. Input is the per-variant streaming accumulators;
 * output is plain JSON (no NaN, no Infinity: undefined quantities are null).
 */
import { ValidationError } from '../../errors.js';
import { cupedComparison, cupedTheta, type CupedComparison, type CupedVariant } from './cuped.js';
import { ratioEstimate, type RatioEstimate } from './delta-method.js';
import { FIXED_ONE_SIDED, guardrailResults, metricRole, sequentialOneSided, type GuardrailResult, type MetricRole } from './guardrails.js';
import { holmAdjust, holmIntervalAlphas } from './holm.js';
import { instanceBreakdown, type InstanceBreakdown } from './instance-breakdown.js';
import {
  DEFAULT_GUARDRAIL_METRICS,
  DEFAULT_PRIMARY_METRIC,
  HARM_DIRECTIONS,
  METRIC_NAMES,
  MINIMUM_METRIC_UNITS,
  isMetricName,
  type MetricName,
} from '../metrics.js';
import {
  FIXED_HORIZON,
  UNRECORDED_ANALYSIS_METHOD,
  defaultTargetSampleSize,
  isAnalysisMethod,
  sequentialMethod,
  sequentialTuning,
  type AnalysisMethod,
  type SequentialTuning,
  type TestMethod,
} from './sequential.js';
import { sampleRatioMismatch, type SrmResult } from './srm.js';
import { VariantAccumulator } from './variant-accumulator.js';

/** What the analysis needs of an experiment. */
export interface AnalysisDesign {
  variants: readonly { name: string; traffic_allocation: number; is_control: boolean }[];
  confidence_level: number;
  minimum_sample_size: number;
  /** The method recorded with the experiment; absent: UNRECORDED_ANALYSIS_METHOD. */
  analysis_method?: string;
  /** The experiment's primary metric; absent: DEFAULT_PRIMARY_METRIC. */
  primary_metric?: string;
  /** The experiment's guardrail metrics; absent (an export from before them, a CSV): DEFAULT_GUARDRAIL_METRICS. */
  guardrail_metrics?: readonly string[];
}

export interface AnalysisOptions {
  primaryMetric?: MetricName;
  /** Overrides the design's recorded method for this read (e.g. the planned final fixed read). */
  method?: AnalysisMethod;
  /** Overrides the design's guardrail metrics. */
  guardrailMetrics?: readonly MetricName[];
  /** Instance → variant → accumulator (instance-breakdown.ts): adds `by_instance` to the result. */
  instances?: ReadonlyMap<string, ReadonlyMap<string, VariantAccumulator>> | undefined;
}

/**
 * One treatment vs the control on one metric; difference = treatment − control. `ci_*` is
 * the unadjusted interval at the confidence level (with the sequential method: the
 * confidence sequence, and `p_value` the always-valid p-value); `adjusted_ci_*` the interval adjusted
 * consistently with the Holm decision (see adjustedInterval): `significant` is true exactly
 * when it excludes 0. Both adjusted bounds are null without a test or when underpowered.
 */
export interface Comparison extends RatioTest {
  metric: MetricName;
  variant: string;
  control: string;
  control_value: number | null;
  variant_value: number | null;
  adjusted_p_value: number | null;
  adjusted_ci_low: number | null;
  adjusted_ci_high: number | null;
  significant: boolean;
  /**
   * An arm has fewer than MINIMUM_METRIC_UNITS of the metric's denominator (answers, impressions,
   * sessions): reported, never significant, no adjusted interval (like underpowered, per metric).
   */
  sparse: boolean;
  /** primary (decides), guardrail (tested one-sided for harm in `guardrails`) or exploratory (reported, decides nothing). */
  role: MetricRole;
  /** The CUPED-adjusted comparison (cuped.ts), reported beside this one; present only when every user has a covariate. */
  cuped?: CupedComparison;
}

export type Significance = 'statistically_significant' | 'not_significant' | 'underpowered';

/** The spec's per-comparison record for the primary metric. */
export interface SignificanceRecord {
  metric: MetricName;
  p_value: number | null;
  unadjusted_p_value: number | null;
  confidence_interval: [number, number] | null;
  adjusted_confidence_interval: [number, number] | null;
  effect_size: number | null;
  significance: Significance;
}

/** What the primary metric says about one treatment: the experiment's decision, and which guardrails flagged harm beside it. */
export interface VariantDecision {
  variant: string;
  /** better / worse: significant on the primary metric in that direction (bounce_rate: lower is better). */
  outcome: 'better' | 'worse' | 'not_significant' | 'underpowered' | 'no_data';
  guardrails_harmed: MetricName[];
}

/** The decision, drawn from the primary metric alone. */
export interface Decision {
  metric: MetricName;
  variants: VariantDecision[];
}

export interface AnalysisResult {
  /** How p-values and intervals were computed (sequential.ts). */
  analysis_method: AnalysisMethod;
  /** The sequential method's mixing parameter; null with the fixed method. */
  sequential_tuning: SequentialTuning | null;
  primary_metric: MetricName;
  guardrail_metrics: MetricName[];
  /** Every metric's role: primary, guardrail or exploratory. */
  metric_roles: Record<MetricName, MetricRole>;
  confidence_level: number;
  minimum_sample_size: number;
  control: string;
  sample_sizes: Record<string, number>;
  metrics: Record<string, Record<MetricName, number | null>>;
  comparisons: Comparison[];
  srm: SrmResult;
  underpowered: boolean;
  underpowered_variants: string[];
  statistical_significance: Record<string, SignificanceRecord>;
  confidence_intervals: Record<string, [number, number]>;
  /** One-sided harm tests of the guardrail metrics, Holm-corrected across the guardrail family (guardrails.ts). */
  guardrails: GuardrailResult[];
  decision: Decision;
  /** Per instance of the users' canonical ids (instance-breakdown.ts); present when the caller had the users' instances. */
  by_instance?: InstanceBreakdown[];
}

/** The key of a comparison in the spec's shapes: `<variant>_vs_<control>`. */
export function comparisonName(variant: string, control: string): string {
  return `${variant}_vs_${control}`;
}

/** The z-test of one treatment vs the control on one metric. */
export interface RatioTest {
  difference: number | null;
  standard_error: number | null;
  ci_low: number | null;
  ci_high: number | null;
  effect_size: number | null;
  p_value: number | null;
}

/**
 * Treatment vs control on one metric: d = R_t − R_c, SE = √(Var_t + Var_c), effect_size =
 * d / R_c; p and the interval at the confidence level from `method` — by default the fixed
 * horizon's z-test, p = 2·(1 − Φ(|z|)), CI = d ± Φ⁻¹(1 − α/2)·SE; sequentially the
 * always-valid p-value and confidence sequence over the users of both variants. The test
 * needs SE > 0; otherwise p, CI are null.
 */
export function compareRatios(
  treatment: RatioEstimate,
  control: RatioEstimate,
  confidenceLevel: number,
  method: TestMethod = FIXED_HORIZON,
): RatioTest {
  const difference = treatment.value !== null && control.value !== null ? treatment.value - control.value : null;
  const effectSize = difference !== null && control.value !== null && control.value !== 0 ? difference / control.value : null;
  const se = treatment.variance !== null && control.variance !== null ? Math.sqrt(treatment.variance + control.variance) : null;
  if (difference === null || se === null || !(se > 0)) {
    return { difference, standard_error: se, ci_low: null, ci_high: null, effect_size: effectSize, p_value: null };
  }
  const n = treatment.n + control.n;
  const half = method.halfWidth(se, n, 1 - confidenceLevel);
  return {
    difference,
    standard_error: se,
    ci_low: difference - half,
    ci_high: difference + half,
    effect_size: effectSize,
    p_value: method.pValue(difference, se, n),
  };
}

/**
 * The interval of one comparison adjusted consistently with the Holm decision: d ± the
 * method's half-width at level γ (fixed: Φ⁻¹(1 − γ/2)·SE), with γ = α/(m − j + 1) when Holm
 * rejects it at step j and γ = α/m when it does not (holmIntervalAlphas proves the agreement
 * for any method whose p < γ exactly when its level-γ interval excludes 0). The half-width is kept below
 * |d| when significant and at least |d| otherwise, so that rounding in Φ and Φ⁻¹ at the exact
 * boundary |z| = Φ⁻¹(1 − γ/2) cannot split verdict and interval (it moves a bound by rounding
 * error only). Null without a test (γ or SE null) or without a decision (underpowered).
 */
export function adjustedInterval(
  difference: number | null,
  se: number | null,
  gamma: number | null,
  significant: boolean,
  underpowered: boolean,
  halfWidth: (se: number, gamma: number) => number = (s, g) => FIXED_HORIZON.halfWidth(s, 0, g),
): [number, number] | null {
  if (underpowered || difference === null || se === null || gamma === null) return null;
  const distance = Math.abs(difference);
  const raw = halfWidth(se, gamma);
  const half = significant ? Math.min(raw, distance * (1 - Number.EPSILON)) : Math.max(raw, distance);
  return [difference - half, difference + half];
}

function controlOf(design: AnalysisDesign): string {
  const controls = design.variants.filter((variant) => variant.is_control);
  const [control] = controls;
  if (controls.length !== 1 || control === undefined) {
    throw new ValidationError(`exactly one variant must be the control (got ${controls.length})`, 'variants');
  }
  return control.name;
}

function checkVariants(design: AnalysisDesign, accumulators: ReadonlyMap<string, VariantAccumulator>): void {
  const known = new Set(design.variants.map((variant) => variant.name));
  for (const name of accumulators.keys()) {
    if (!known.has(name))
      throw new ValidationError(`the data has users in variant "${name}", which the experiment does not define`, 'variants');
  }
}

function metricComparisons(
  metric: MetricName,
  role: MetricRole,
  estimates: Map<string, Map<MetricName, RatioEstimate>>,
  control: string,
  design: AnalysisDesign,
  underpowered: boolean,
  method: TestMethod,
  cuped: ReadonlyMap<string, CupedVariant> | null,
): Comparison[] {
  const alpha = 1 - design.confidence_level;
  const theta = cuped === null ? null : cupedTheta([...cuped.values()]);
  const controlEstimate = estimates.get(control)?.get(metric) as RatioEstimate;
  const raw = design.variants
    .filter((variant) => variant.name !== control)
    .map((variant) => {
      const estimate = estimates.get(variant.name)?.get(metric) as RatioEstimate;
      const test = compareRatios(estimate, controlEstimate, design.confidence_level, method);
      return { variant: variant.name, estimate, ...test };
    });
  const pValues = raw.map((entry) => entry.p_value);
  const adjusted = holmAdjust(pValues);
  const gammas = holmIntervalAlphas(pValues, alpha);
  return raw.map(({ variant, estimate, ...test }, i) => {
    const adjustedP = adjusted[i] ?? null;
    const sparse = isSparse(estimate, controlEstimate);
    const undecided = underpowered || sparse;
    const significant = !undecided && adjustedP !== null && adjustedP < alpha;
    const n = estimate.n + controlEstimate.n;
    const interval = adjustedInterval(test.difference, test.standard_error, gammas[i] ?? null, significant, undecided, (se, gamma) =>
      method.halfWidth(se, n, gamma),
    );
    const treatmentCuped = cuped?.get(variant);
    const controlCuped = cuped?.get(control);
    const adjustedForCovariate =
      theta === null || treatmentCuped === undefined || controlCuped === undefined
        ? {}
        : { cuped: cupedComparison(treatmentCuped, controlCuped, theta, test.standard_error, design.confidence_level, method) };
    return {
      metric,
      variant,
      control,
      control_value: controlEstimate.value,
      variant_value: estimate.value,
      ...test,
      adjusted_p_value: adjustedP,
      adjusted_ci_low: interval?.[0] ?? null,
      adjusted_ci_high: interval?.[1] ?? null,
      significant,
      sparse,
      role,
      ...adjustedForCovariate,
    };
  });
}

/** Whether either arm has fewer than MINIMUM_METRIC_UNITS of the metric's denominator. */
function isSparse(treatment: RatioEstimate, control: RatioEstimate): boolean {
  return (treatment.sumY ?? 0) < MINIMUM_METRIC_UNITS || (control.sumY ?? 0) < MINIMUM_METRIC_UNITS;
}

function significanceShapes(comparisons: readonly Comparison[], primary: MetricName, underpowered: boolean) {
  const statistical: Record<string, SignificanceRecord> = {};
  const intervals: Record<string, [number, number]> = {};
  const primaryComparisons = comparisons.filter((comparison) => comparison.metric === primary);
  for (const c of primaryComparisons) {
    const name = comparisonName(c.variant, c.control);
    const interval: [number, number] | null = c.ci_low !== null && c.ci_high !== null ? [c.ci_low, c.ci_high] : null;
    const adjusted: [number, number] | null =
      c.adjusted_ci_low !== null && c.adjusted_ci_high !== null ? [c.adjusted_ci_low, c.adjusted_ci_high] : null;
    statistical[name] = {
      metric: primary,
      p_value: c.adjusted_p_value,
      unadjusted_p_value: c.p_value,
      confidence_interval: interval,
      adjusted_confidence_interval: adjusted,
      effect_size: c.effect_size,
      significance: underpowered ? 'underpowered' : c.significant ? 'statistically_significant' : 'not_significant',
    };
    if (interval === null) continue;
    intervals[`${primary}:${name}`] = interval;
    if (primaryComparisons.length === 1) intervals[primary] = interval;
  }
  return { statistical_significance: statistical, confidence_intervals: intervals };
}

/** Every variant's CUPED inputs for one metric, or null unless every user of every variant has a covariate. */
function cupedInputs(metric: MetricName, design: AnalysisDesign, accumulatorOf: (name: string) => VariantAccumulator) {
  const inputs = new Map<string, CupedVariant>();
  for (const { name } of design.variants) {
    const accumulator = accumulatorOf(name);
    const covariate = accumulator.covariateMoments(metric);
    if (covariate === null) return null;
    inputs.set(name, { ratio: accumulator.moments(metric), covariate });
  }
  return inputs;
}

/** The method of this read: the option, else the design's recorded one, else UNRECORDED_ANALYSIS_METHOD. */
function methodOf(design: AnalysisDesign, options: AnalysisOptions): AnalysisMethod {
  if (options.method !== undefined) return options.method;
  const recorded = design.analysis_method;
  if (recorded === undefined) return UNRECORDED_ANALYSIS_METHOD;
  if (!isAnalysisMethod(recorded))
    throw new ValidationError(`analysis_method must be "fixed" or "sequential" (got ${JSON.stringify(recorded)})`, 'analysis_method');
  return recorded;
}

/** The guardrails of this read: the option, else the design's, else DEFAULT_GUARDRAIL_METRICS; the primary is never one. */
function guardrailsOf(design: AnalysisDesign, options: AnalysisOptions, primary: MetricName): MetricName[] {
  const given = options.guardrailMetrics ?? design.guardrail_metrics ?? DEFAULT_GUARDRAIL_METRICS;
  given.forEach((metric, i) => {
    if (!isMetricName(metric))
      throw new ValidationError(
        `guardrail_metrics[${i}]: unknown metric ${JSON.stringify(metric)} (expected one of ${METRIC_NAMES.join(', ')})`,
        'guardrail_metrics',
      );
  });
  return [...new Set(given as readonly MetricName[])].filter((metric) => metric !== primary);
}

/** The primary of this read: the option, else the design's recorded one, else DEFAULT_PRIMARY_METRIC. */
function primaryOf(design: AnalysisDesign, options: AnalysisOptions): MetricName {
  if (options.primaryMetric !== undefined) return options.primaryMetric;
  const recorded = design.primary_metric;
  if (recorded === undefined) return DEFAULT_PRIMARY_METRIC;
  if (!isMetricName(recorded))
    throw new ValidationError(
      `primary_metric: unknown metric ${JSON.stringify(recorded)} (expected one of ${METRIC_NAMES.join(', ')})`,
      'primary_metric',
    );
  return recorded;
}

/** Per treatment, the primary metric's verdict and the guardrails that flagged harm. */
function decisionOf(
  primary: MetricName,
  comparisons: readonly Comparison[],
  guardrails: readonly GuardrailResult[],
  underpowered: boolean,
): Decision {
  const variants = comparisons
    .filter((c) => c.metric === primary)
    .map((c): VariantDecision => {
      const harmed = guardrails.filter((g) => g.variant === c.variant && g.harm_detected).map((g) => g.metric);
      const rose = (c.difference ?? 0) > 0;
      const better = HARM_DIRECTIONS[primary] === 'increase' ? !rose : rose;
      const outcome =
        c.p_value === null ? 'no_data' : underpowered ? 'underpowered' : !c.significant ? 'not_significant' : better ? 'better' : 'worse';
      return { variant: c.variant, outcome, guardrails_harmed: harmed };
    });
  return { metric: primary, variants };
}

/**
 * Analyses an experiment from per-variant accumulators: ratio-of-sums metrics, delta-method
 * tests (fixed-horizon z-tests or sequential mSPRT, see methodOf and sequential.ts) of each
 * treatment vs the control per metric with Holm adjustment per metric (and
 * Holm-consistent intervals, see adjustedInterval), SRM check, underpowered flag; with a
 * covariate for every user, each comparison also carries its CUPED adjustment (cuped.ts).
 * `confidence_intervals` (unadjusted intervals of the difference treatment − control on the
 * primary metric) is keyed `<metric>:<variant>_vs_<control>` for every comparison, plus the
 * bare `<metric>` when there is a single treatment; the spec records carry both intervals.
 */
export function analyzeExperiment(
  design: AnalysisDesign,
  accumulators: ReadonlyMap<string, VariantAccumulator>,
  options: AnalysisOptions = {},
): AnalysisResult {
  const primary = primaryOf(design, options);
  const guardrailMetrics = guardrailsOf(design, options, primary);
  const control = controlOf(design);
  checkVariants(design, accumulators);
  const accumulatorOf = (name: string): VariantAccumulator => accumulators.get(name) ?? new VariantAccumulator(name);
  const sampleSizes = Object.fromEntries(design.variants.map((v) => [v.name, accumulatorOf(v.name).users]));
  const estimates = new Map(
    design.variants.map((v) => [v.name, new Map(METRIC_NAMES.map((m) => [m, ratioEstimate(accumulatorOf(v.name).moments(m))]))]),
  );
  const underpoweredVariants = design.variants.filter((v) => (sampleSizes[v.name] ?? 0) < design.minimum_sample_size).map((v) => v.name);
  const underpowered = underpoweredVariants.length > 0;
  const analysisMethod = methodOf(design, options);
  const tuning =
    analysisMethod === 'sequential'
      ? sequentialTuning(1 - design.confidence_level, defaultTargetSampleSize(design.minimum_sample_size))
      : null;
  const method = tuning === null ? FIXED_HORIZON : sequentialMethod(tuning);
  const roles = Object.fromEntries(METRIC_NAMES.map((m) => [m, metricRole(m, primary, guardrailMetrics)])) as Record<
    MetricName,
    MetricRole
  >;
  const comparisons = METRIC_NAMES.flatMap((metric) =>
    metricComparisons(metric, roles[metric], estimates, control, design, underpowered, method, cupedInputs(metric, design, accumulatorOf)),
  );
  const guardrails = guardrailResults(
    guardrailMetrics
      .flatMap((metric) => comparisons.filter((c) => c.metric === metric))
      .map((c) => ({ ...c, n: (sampleSizes[c.variant] ?? 0) + (sampleSizes[control] ?? 0), sparse: c.sparse })),
    1 - design.confidence_level,
    tuning === null ? FIXED_ONE_SIDED : sequentialOneSided(method),
    underpowered,
    // Decisive harm before the minimum: always the sequential test, tuned as the sequential method would be.
    sequentialOneSided(
      sequentialMethod(sequentialTuning(1 - design.confidence_level, defaultTargetSampleSize(design.minimum_sample_size))),
    ),
  );
  const metrics = Object.fromEntries(
    [...estimates].map(([name, byMetric]) => [name, Object.fromEntries([...byMetric].map(([m, e]) => [m, e.value]))]),
  ) as Record<string, Record<MetricName, number | null>>;
  const srm = sampleRatioMismatch(
    design.variants.map((v) => sampleSizes[v.name] ?? 0),
    design.variants.map((v) => v.traffic_allocation),
  );
  return {
    analysis_method: analysisMethod,
    sequential_tuning: tuning,
    primary_metric: primary,
    guardrail_metrics: guardrailMetrics,
    metric_roles: roles,
    confidence_level: design.confidence_level,
    minimum_sample_size: design.minimum_sample_size,
    control,
    sample_sizes: sampleSizes,
    metrics,
    comparisons,
    srm,
    underpowered,
    underpowered_variants: underpoweredVariants,
    ...significanceShapes(comparisons, primary, underpowered),
    guardrails,
    decision: decisionOf(primary, comparisons, guardrails, underpowered),
    ...(options.instances === undefined ? {} : { by_instance: instanceBreakdown(design.variants, options.instances) }),
  };
}
