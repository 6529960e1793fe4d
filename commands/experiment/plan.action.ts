/** The work behind `experiment plan`: resolve the inputs (flags, or traffic observed by the server), plan, print. */
import type { ExperimentAnalysis } from '../../src/experiments/experiment-analysis.schema.js';
import type { VariantMetrics } from '../../src/experiments/experiment-metrics.schema.js';
import { METRICS, type MetricName } from '../../src/experiments/metrics.js';
import { planDuration, planInputIssues, planSampleSize, powerAtSampleSize, type PlanInput } from '../../src/experiments/stats/power.js';
import { parseAllocations } from '../support/allocations.js';
import { usageError } from '../support/cli-error.js';
import { printJson, printLine } from '../support/output.js';
import { resolveVariance, type VarianceAssumption } from './plan-variance.js';
import { renderPlan, type PlanReport, type ObservedTraffic } from './plan-view.js';
import type { AnalysisMethod } from '../../src/experiments/stats/sequential.js';
import type { ServerFlags } from '../support/server-options.js';

export interface PlanOptions extends ServerFlags {
  metric: MetricName;
  baseline?: number;
  mde?: number;
  mdeAbsolute?: number;
  power: number;
  alpha: number;
  allocations: string;
  control?: string;
  sd?: number;
  pilot?: string;
  binomial?: boolean;
  method: AnalysisMethod;
  perUser?: number;
  dailyUsers?: number;
  traffic: number;
  minSampleSize: number;
  fromExperiment?: number;
  json?: boolean;
}

/** Plans from the flags, filling what they leave out from the experiment named by --from-experiment. */
export async function runPlan(options: PlanOptions): Promise<void> {
  const observed = options.fromExperiment === undefined ? undefined : await observeTraffic(options.fromExperiment, options);
  const variance = await resolveVariance(options.metric, options, observed);
  const input = planInput(options, observed, variance);
  const issues = planInputIssues(input);
  if (issues.length > 0) throw usageError(issues.map((issue) => flagOfIssue(issue, options)).join('; '));
  const plan = planSampleSize(input);
  const dailyUsers = options.dailyUsers ?? observed?.daily_users;
  const report: PlanReport = {
    ...plan,
    power_at_minimum_sample_size: { minimum_sample_size: options.minSampleSize, power: powerAtSampleSize(input, options.minSampleSize) },
    duration: dailyUsers === undefined ? null : planDuration(plan.total_users, dailyUsers, options.traffic),
    observed: observed ?? null,
    assumption: variance.assumption,
  };
  if (options.json) printJson(report);
  else printLine(renderPlan(report));
}

function planInput(options: PlanOptions, observed: ObservedTraffic | undefined, variance: VarianceAssumption): PlanInput {
  const baseline = options.baseline ?? variance.baseline ?? observed?.baseline ?? undefined;
  if (baseline === undefined) throw usageError('--baseline is required (or --pilot / --from-experiment to read it from data)');
  if ((options.mde === undefined) === (options.mdeAbsolute === undefined))
    throw usageError('give exactly one of --mde <percent> (relative to the baseline) and --mde-absolute <value>');
  const allocations = parseAllocations(options.allocations);
  const control = options.control ?? allocations[0]?.name;
  if (!allocations.some((a) => a.name === control)) throw usageError(`--control: "${control}" is not one of --allocations`);
  return {
    metric: options.metric,
    baseline,
    effect:
      options.mde !== undefined ? { kind: 'relative', value: options.mde } : { kind: 'absolute', value: options.mdeAbsolute as number },
    alpha: options.alpha,
    power: options.power,
    variants: allocations.map((a) => ({ ...a, is_control: a.name === control })),
    unitsPerUser: options.perUser ?? variance.units_per_user ?? observed?.units_per_user ?? undefined,
    sd: variance.sd,
    method: options.method,
  };
}

const ISSUE_FLAGS: Record<string, string> = {
  baseline: '--baseline',
  effect: '--mde',
  alpha: '--alpha',
  power: '--power',
  sd: '--sd',
  'units per user': '--per-user',
  variants: '--allocations',
};

/** `field: why` from planInputIssues, named by the flag that sets the field. */
function flagOfIssue(issue: string, options: PlanOptions): string {
  const field = issue.slice(0, issue.indexOf(':'));
  const flag = field === 'effect' && options.mdeAbsolute !== undefined ? '--mde-absolute' : ISSUE_FLAGS[field];
  return `${flag ?? field}${issue.slice(field.length)}`;
}

const SECONDS_PER_DAY = 86_400;

/**
 * What a running (or finished) experiment shows of the traffic: from GET .../metrics, the
 * control's metric value and its denominator units per user, and users enrolled per active
 * day; from GET .../{id}, its traffic_percentage, to scale enrolment back to all new users.
 */
async function observeTraffic(id: number, options: PlanOptions): Promise<ObservedTraffic> {
  const [{ ApiClient }, { ExperimentSchema }, { ExperimentMetricsSchema }, { ExperimentAnalysisSchema }] = await Promise.all([
    import('../support/api-client.js'),
    import('../../src/experiments/experiment-response.schema.js'),
    import('../../src/experiments/experiment-metrics.schema.js'),
    import('../../src/experiments/experiment-analysis.schema.js'),
  ]);
  const client = new ApiClient(options);
  const [experiment, metrics, analysis] = await Promise.all([
    client.get(ApiClient.experimentsPath(id), ExperimentSchema),
    client.get(ApiClient.experimentsPath(id, 'metrics'), ExperimentMetricsSchema),
    client.get(`${ApiClient.experimentsPath(id, 'analysis')}?metric=${options.metric}`, ExperimentAnalysisSchema),
  ]);
  const control = metrics.variants.find((v) => v.is_control);
  const users = metrics.variants.reduce((sum, v) => sum + v.users, 0);
  if (control === undefined || control.users === 0 || !(metrics.active_seconds > 0))
    throw usageError(`--from-experiment: experiment ${id} has no enrolled users or active time to observe yet`);
  const activeDays = metrics.active_seconds / SECONDS_PER_DAY;
  const unitsOf = (variant: VariantMetrics): number =>
    METRICS[options.metric].denominator.reduce((sum, key) => sum + variant.totals[key], 0);
  const units = unitsOf(control);
  return {
    experiment_id: id,
    active_days: activeDays,
    users,
    traffic_percentage: experiment.traffic_percentage,
    daily_users: users / activeDays / (experiment.traffic_percentage / 100),
    baseline: control.engagement[options.metric],
    units_per_user: units > 0 ? units / control.users : null,
    sd: observedSd(analysis.comparisons, metrics.variants, options.metric, unitsOf),
  };
}

/**
 * The per-unit standard deviation the analysis itself measured: its delta-method standard
 * error of the first treatment's difference, SE² = σ²/Uc + σ²/Ut with U each arm's
 * denominator units, solved for σ = SE / √(1/Uc + 1/Ut). Unlike √(p(1 − p)) it carries how
 * much users differ (a user's impressions are not independent trials); null without a test.
 */
function observedSd(
  comparisons: readonly ExperimentAnalysis['comparisons'][number][],
  variants: readonly VariantMetrics[],
  metric: string,
  unitsOf: (variant: VariantMetrics) => number,
): number | null {
  const comparison = comparisons.find((c) => c.metric === metric && c.standard_error !== null);
  const control = variants.find((v) => v.name === comparison?.control);
  const treatment = variants.find((v) => v.name === comparison?.variant);
  if (comparison?.standard_error == null || control === undefined || treatment === undefined) return null;
  const [uc, ut] = [unitsOf(control), unitsOf(treatment)];
  if (!(uc > 0 && ut > 0 && comparison.standard_error > 0)) return null;
  return comparison.standard_error / Math.sqrt(1 / uc + 1 / ut);
}
