/**
 * Sample size, power and duration of an experiment on one ratio metric (`recsvc experiment
 * plan`, and the warning of `experiment create` when `minimum_sample_size` is below the plan).
 *
 * The model is the analysis' own (decisions.md, Statistics): each variant's metric is a ratio
 * of sums R = Σx/Σy whose variance is σ²/U, U the variant's denominator units (impressions for
 * click-through rate, sessions for bounce rate, ...) and σ the per-unit standard deviation. The
 * z-test of a treatment against the control rejects when |d|/SE > z₁₋γ/₂, SE² = σc²/Uc + σt²/Ut.
 * With U units in the experiment split by the allocation shares wᵥ (Uᵥ = U·wᵥ):
 *
 *   power(U) = Φ(|δ|/SE(U) − z₁₋γ/₂) + Φ(−|δ|/SE(U) − z₁₋γ/₂),   SE(U)² = (σc²/wc + σt²/wt)/U,
 *
 * and the units needed for power 1 − β solve power(U) = 1 − β; dropping the far tail gives the
 * closed form U₀ = (z₁₋γ/₂ + z₁₋β)²·(σc²/wc + σt²/wt)/δ², which is where the solver starts.
 * Users follow from the metric's own denominator: users = units / (denominator units per user).
 *
 * σ: given by the caller (`sd`), normally the delta-method σ measured in the service's own data
 * or a pilot export (plan-variance.ts), which carries how much users differ; without it, for the
 * rates (click-through, interaction, bounce, satisfaction), √(p(1 − p)) at the control's
 * baseline p and at the treatment's p + δ: the binomial assumption, units as independent trials,
 * which the CLI makes only when asked (BINOMIAL_ASSUMPTION).
 *
 * Method: the critical value is the fixed read's z₁₋γ/₂ or, for the sequential method, the
 * confidence sequence's multiplier at the planned size with the tuning the experiment will get
 * (criticalValue).
 *
 * Several treatments: the analysis tests each against the control with Holm's correction over
 * the m treatments. Holm rejects at least whatever Bonferroni rejects, so planning each
 * comparison at γ = α/m guarantees at least the planned power per comparison under Holm too
 * (conservative by at most the gap between Holm and Bonferroni). One treatment: γ = α.
 */
import { normalCdf, normalQuantile } from './distributions.js';
import {
  DEFAULT_ANALYSIS_METHOD,
  confidenceSequenceHalfWidth,
  defaultTargetSampleSize,
  isAnalysisMethod,
  sequentialTuning,
  type AnalysisMethod,
  type SequentialTuning,
} from './sequential.js';
import { DEFAULT_PRIMARY_METRIC, METRICS, PROPORTION_METRICS, isMetricName, type MetricName } from '../metrics.js';

/** Metrics whose numerator counts events out of the denominator's units (a share between 0 and 1). */
export const RATE_METRICS: ReadonlySet<MetricName> = PROPORTION_METRICS;

/** The minimum detectable effect: relative to the baseline (0.1 = +10%) or in the metric's units. */
export interface MinimumEffect {
  kind: 'relative' | 'absolute';
  value: number;
}

/** A variant as the plan needs it: its allocation (any positive weights; shares are weight / Σ weights). */
export interface PlanVariant {
  name: string;
  traffic_allocation: number;
  is_control: boolean;
}

export interface PlanInput {
  metric: MetricName;
  /** The control's expected metric value. */
  baseline: number;
  effect: MinimumEffect;
  /** Family-wise two-sided level over the treatments (default 0.05). */
  alpha?: number | undefined;
  /** Target power per comparison (default 0.8). */
  power?: number | undefined;
  variants: readonly PlanVariant[];
  /** Denominator units per user (impressions per user for click-through rate); default 1. */
  unitsPerUser?: number | undefined;
  /** Per-unit standard deviation; required for metrics that are not rates. */
  sd?: number | undefined;
  /** The method the experiment will be read with (default fixed: one planned read). */
  method?: AnalysisMethod | undefined;
}

export interface PlannedVariant {
  name: string;
  is_control: boolean;
  share: number;
  units: number;
  users: number;
}

export interface Plan {
  metric: MetricName;
  /** What the metric's denominator counts, e.g. "impressions". */
  unit: string;
  baseline: number;
  target: number;
  absolute_effect: number;
  relative_effect: number | null;
  alpha: number;
  /** 'none' with one treatment; 'bonferroni' (α/m per comparison, valid for Holm) with more. */
  correction: 'none' | 'bonferroni';
  comparison_alpha: number;
  power: number;
  control_sd: number;
  treatment_sd: number;
  units_per_user: number;
  variants: PlannedVariant[];
  total_units: number;
  total_users: number;
  /**
   * The `minimum_sample_size` that matches this plan: the smallest variant's users. The
   * analysis is underpowered until every variant has `minimum_sample_size` users, and with
   * users split by allocation the smallest variant is the last to get there, so at that
   * point every comparison has at least the planned power.
   */
  minimum_sample_size: number;
  /** The method planned for. */
  method: AnalysisMethod;
  /** What |d|/SE must exceed at the planned size: Φ⁻¹(1 − γ/2) (fixed) or the confidence sequence's c (sequential). */
  critical_value: number;
  /** Sequential: the tuning an experiment with this minimum_sample_size gets (n* = 2 × minimum); null for fixed. */
  sequential_tuning: SequentialTuning | null;
}

export const DEFAULT_POWER = 0.8;

/** How the plan and the warning name the binomial assumption, which is only ever made when asked. */
export const BINOMIAL_ASSUMPTION = "binomial variance: the metric's units independent trials, which under-plans when users differ";
export const DEFAULT_ALPHA = 0.05;

/** Problems with a plan's input, as `field: message`; empty when it can be planned. */
export function planInputIssues(input: PlanInput): string[] {
  const issues: string[] = [];
  const alpha = input.alpha ?? DEFAULT_ALPHA;
  const power = input.power ?? DEFAULT_POWER;
  const rate = RATE_METRICS.has(input.metric);
  if (!(alpha > 0 && alpha < 1)) issues.push(`alpha: must be between 0 and 1 (got ${alpha})`);
  if (!(power > 0 && power < 1)) issues.push(`power: must be between 0 and 1 (got ${power})`);
  if (!Number.isFinite(input.baseline) || (rate ? !(input.baseline > 0 && input.baseline < 1) : false))
    issues.push(`baseline: a rate must be between 0 and 1 (got ${input.baseline})`);
  if (!Number.isFinite(input.effect.value) || input.effect.value === 0) issues.push('effect: must be a non-zero number');
  if (input.effect.kind === 'relative' && input.baseline === 0) issues.push('effect: a relative effect needs a non-zero baseline');
  if (input.unitsPerUser !== undefined && !(input.unitsPerUser > 0)) issues.push('units per user: must be greater than 0');
  if (input.sd !== undefined && !(input.sd > 0 && Number.isFinite(input.sd))) issues.push('sd: must be greater than 0');
  if (!rate && input.sd === undefined) issues.push(`sd: ${input.metric} is not a rate: its per-unit standard deviation is needed`);
  const controls = input.variants.filter((v) => v.is_control).length;
  if (controls !== 1) issues.push(`variants: exactly one must be the control (got ${controls})`);
  if (input.variants.length < 2) issues.push('variants: at least two are needed');
  if (input.variants.some((v) => !(v.traffic_allocation > 0))) issues.push('variants: every allocation must be greater than 0');
  if (rate && issues.length === 0) {
    const target = targetValue(input.baseline, input.effect);
    if (!(target > 0 && target < 1)) issues.push(`effect: the treatment's rate ${target} is not between 0 and 1`);
  }
  return issues;
}

function targetValue(baseline: number, effect: MinimumEffect): number {
  return effect.kind === 'relative' ? baseline * (1 + effect.value) : baseline + effect.value;
}

/** Power of the two-sided z-test at level γ (or at the critical value `critical`) with the difference δ measured with standard error se. */
export function zTestPower(delta: number, se: number, gamma: number, critical = normalQuantile(1 - gamma / 2)): number {
  const z = critical;
  const shift = Math.abs(delta) / se;
  return normalCdf(shift - z) + normalCdf(-shift - z);
}

/**
 * Units U (all variants together) at which the z-test reaches `power`: the closed form
 * (z₁₋γ/₂ + z_power)²·k/δ², k = σc²/wc + σt²/wt, refined by bisection on the exact power
 * (both tails), which the closed form understates by the far tail's mass.
 */
export function requiredUnits(
  delta: number,
  varianceFactor: number,
  gamma: number,
  power: number,
  critical = normalQuantile(1 - gamma / 2),
): number {
  const z = critical + normalQuantile(power);
  const closed = (z * z * varianceFactor) / (delta * delta);
  const powerAt = (units: number): number => zTestPower(delta, Math.sqrt(varianceFactor / units), gamma, critical);
  // power(U) increases with U; at the closed form it is ≥ the target (the far tail only adds).
  let low = closed / 2;
  while (powerAt(low) >= power && low > Number.MIN_VALUE) low /= 2;
  let high = closed;
  for (let i = 0; i < 200 && high - low > high * 1e-14; i++) {
    const mid = (low + high) / 2;
    if (powerAt(mid) >= power) high = mid;
    else low = mid;
  }
  return high;
}

interface Resolved {
  alpha: number;
  power: number;
  unitsPerUser: number;
  control: PlanVariant;
  treatments: PlanVariant[];
  totalWeight: number;
  delta: number;
  target: number;
  controlSd: number;
  treatmentSd: number;
  gamma: number;
  method: AnalysisMethod;
}

function resolve(input: PlanInput): Resolved {
  const issues = planInputIssues(input);
  if (issues.length > 0) throw new RangeError(issues.join('; '));
  const alpha = input.alpha ?? DEFAULT_ALPHA;
  const target = targetValue(input.baseline, input.effect);
  const rate = RATE_METRICS.has(input.metric);
  const controlSd = input.sd ?? Math.sqrt(input.baseline * (1 - input.baseline));
  // A rate's spread moves with its level: a measured σ is the control's, and the treatment's is
  // scaled as the binomial one would be, √(t(1 − t) / (b(1 − b))).
  const binomialRatio = rate ? Math.sqrt((target * (1 - target)) / (input.baseline * (1 - input.baseline))) : 1;
  const treatmentSd = input.sd === undefined ? (rate ? Math.sqrt(target * (1 - target)) : controlSd) : input.sd * binomialRatio;
  const treatments = input.variants.filter((v) => !v.is_control);
  return {
    alpha,
    power: input.power ?? DEFAULT_POWER,
    unitsPerUser: input.unitsPerUser ?? 1,
    control: input.variants.find((v) => v.is_control) as PlanVariant,
    treatments,
    totalWeight: input.variants.reduce((sum, v) => sum + v.traffic_allocation, 0),
    delta: target - input.baseline,
    target,
    controlSd,
    treatmentSd,
    gamma: alpha / treatments.length,
    method: input.method ?? 'fixed',
  };
}

/**
 * The critical value of one treatment's comparison at the planned size. Fixed: Φ⁻¹(1 − γ/2).
 * Sequential: the confidence sequence's half-width per unit SE at the read where the smallest
 * variant reaches the plan's minimum_sample_size m, with the analysis' own tuning for an
 * experiment created with that minimum (n* = 2m, ρ² at the family α, sequential.ts):
 * c = √((1 + 1/r)(ln(1 + r) − 2 ln γ)), r = n·ρ², n = the two variants' users. Users scale with
 * the allocations, so n/n* = (w_c + w_t)/(2·w_min) and c does not depend on the size: the plan is
 * the fixed one with c in place of z (c ≈ 3.04 against z = 1.96 at α = 0.05, two variants). It is
 * the power of that one read, a lower bound on the power of reading as often as one likes.
 */
function criticalValue(r: Resolved, treatment: PlanVariant, smallestWeight: number): number {
  if (r.method === 'fixed') return normalQuantile(1 - r.gamma / 2);
  const nStar = 2;
  const n = (nStar * (r.control.traffic_allocation + treatment.traffic_allocation)) / (2 * smallestWeight);
  return confidenceSequenceHalfWidth(1, n, sequentialTuning(r.alpha, nStar).rho_squared, r.gamma);
}

/** k = σc²/wc + σt²/wt for one treatment: SE² = k / U. */
function varianceFactor(r: Resolved, treatment: PlanVariant): number {
  return (
    (r.controlSd ** 2 * r.totalWeight) / r.control.traffic_allocation + (r.treatmentSd ** 2 * r.totalWeight) / treatment.traffic_allocation
  );
}

/** The sample size per variant, the users in all, and the matching `minimum_sample_size`. */
export function planSampleSize(input: PlanInput): Plan {
  const r = resolve(input);
  const smallest = Math.min(...input.variants.map((v) => v.traffic_allocation));
  const totalUnits = Math.max(
    ...r.treatments.map((t) => requiredUnits(r.delta, varianceFactor(r, t), r.gamma, r.power, criticalValue(r, t, smallest))),
  );
  const variants = input.variants.map((v) => {
    const units = (totalUnits * v.traffic_allocation) / r.totalWeight;
    // (the users below are whole; the smallest variant's is the minimum_sample_size to create with)
    return {
      name: v.name,
      is_control: v.is_control,
      share: v.traffic_allocation / r.totalWeight,
      units,
      users: Math.ceil(units / r.unitsPerUser),
    };
  });
  const minimum = Math.min(...variants.map((v) => v.users));
  return {
    metric: input.metric,
    unit: METRICS[input.metric].denominator.join(' + '),
    baseline: input.baseline,
    target: r.target,
    absolute_effect: r.delta,
    relative_effect: input.baseline === 0 ? null : r.delta / input.baseline,
    alpha: r.alpha,
    correction: r.treatments.length > 1 ? 'bonferroni' : 'none',
    comparison_alpha: r.gamma,
    power: r.power,
    control_sd: r.controlSd,
    treatment_sd: r.treatmentSd,
    units_per_user: r.unitsPerUser,
    variants,
    total_units: totalUnits,
    total_users: variants.reduce((sum, v) => sum + v.users, 0),
    minimum_sample_size: minimum,
    method: r.method,
    critical_value: Math.max(...r.treatments.map((t) => criticalValue(r, t, smallest))),
    sequential_tuning: r.method === 'sequential' ? sequentialTuning(r.alpha, defaultTargetSampleSize(minimum)) : null,
  };
}

/**
 * The `minimum_sample_size` (users per variant) the plan needs: `experiment create` warns
 * when the experiment's is below it.
 */
export function requiredSampleSize(input: PlanInput): number {
  return planSampleSize(input).minimum_sample_size;
}

/**
 * The power of each treatment's comparison once every variant has at least
 * `usersPerVariant` users, i.e. when the smallest variant reaches it (the analysis stops
 * calling the experiment underpowered there): the lowest over the treatments.
 */
export function powerAtSampleSize(input: PlanInput, usersPerVariant: number): number {
  const r = resolve(input);
  const smallest = Math.min(...input.variants.map((v) => v.traffic_allocation));
  const totalUnits = (usersPerVariant * r.unitsPerUser * r.totalWeight) / smallest;
  return Math.min(
    ...r.treatments.map((t) => zTestPower(r.delta, Math.sqrt(varianceFactor(r, t) / totalUnits), r.gamma, criticalValue(r, t, smallest))),
  );
}

/** How long enrolment takes: users needed / (new users per day × traffic share), whole days. */
export interface Duration {
  daily_users: number;
  traffic_percentage: number;
  enrolled_per_day: number;
  days: number;
}

export function planDuration(totalUsers: number, dailyUsers: number, trafficPercentage = 100): Duration {
  const enrolledPerDay = (dailyUsers * trafficPercentage) / 100;
  return {
    daily_users: dailyUsers,
    traffic_percentage: trafficPercentage,
    enrolled_per_day: enrolledPerDay,
    days: Math.ceil(totalUsers / enrolledPerDay),
  };
}

/** What the planner must assume beyond the experiment's own fields (see PlanInput). */
export interface PlanAssumptions {
  baseline: number;
  effect: MinimumEffect;
  power?: number | undefined;
  unitsPerUser?: number | undefined;
  sd?: number | undefined;
  /** Where sd came from, said in the warning (e.g. "delta-method variance of pilot.jsonl"); default binomial. */
  variance?: string | undefined;
}

/** The experiment fields the warning reads (the creation body's). */
export interface PlannedExperiment {
  variants: readonly PlanVariant[];
  confidence_level: number;
  minimum_sample_size: number;
  primary_metric?: string | undefined;
  /** The method it will be read with; absent: DEFAULT_ANALYSIS_METHOD (sequential), as the server creates it. */
  analysis_method?: string | undefined;
}

/**
 * For `experiment create`: a warning when the experiment's `minimum_sample_size` is below the
 * plan for its primary metric at `assumptions` (the analysis would stop calling it underpowered
 * before it has the planned power), naming the power it would have; undefined when it is not
 * below, or when the assumptions cannot be planned (planInputIssues names why).
 */
export function sampleSizeWarning(experiment: PlannedExperiment, assumptions: PlanAssumptions): string | undefined {
  const metric = isMetricName(experiment.primary_metric) ? experiment.primary_metric : DEFAULT_PRIMARY_METRIC;
  const method = isAnalysisMethod(experiment.analysis_method) ? experiment.analysis_method : DEFAULT_ANALYSIS_METHOD;
  const { variance, ...given } = assumptions;
  const input: PlanInput = { ...given, metric, method, alpha: 1 - experiment.confidence_level, variants: experiment.variants };
  if (planInputIssues(input).length > 0) return undefined;
  const plan = planSampleSize(input);
  if (experiment.minimum_sample_size >= plan.minimum_sample_size) return undefined;
  const power = powerAtSampleSize(input, experiment.minimum_sample_size);
  const effect = plan.relative_effect === null ? `${plan.absolute_effect}` : `${Number((plan.relative_effect * 100).toPrecision(4))}%`;
  return (
    `minimum_sample_size ${experiment.minimum_sample_size} is below the ${plan.minimum_sample_size} users per variant needed ` +
    `for ${Math.round(plan.power * 100)}% power to detect ${effect} on ${metric} from ${plan.baseline}: ` +
    `at ${experiment.minimum_sample_size} the power is ${(power * 100).toFixed(1)}% ` +
    `(${method} method, ${variance ?? (input.sd === undefined ? BINOMIAL_ASSUMPTION : 'the given sd')}; see recsvc experiment plan)`
  );
}
