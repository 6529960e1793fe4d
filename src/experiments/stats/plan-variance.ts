/**
 * What `experiment plan` assumes about a metric's spread, from data (issue 30): the delta-method
 * variance of the service's own users, so that users who differ (some click a lot, most rarely)
 * are planned for; the binomial √(p(1 − p)) per unit treats every impression as an independent
 * trial and under-plans when they do not (the audit: its "80% power" size delivered 27%).
 *
 * From per-variant accumulators (a pilot export or CSV, or any past experiment's users): each
 * variant's delta-method variance of R (delta-method.ts) is Var_v = V_v / n_v with V_v the
 * per-user variance of the linearised ratio; the plan works per denominator unit (SE² = σ²/U,
 * U = n·ȳ), so σ_v² = Var_v·Σy_v, pooled over the variants weighted by n_v − 1 (variants differ
 * in their means, not their spread, under the plan's model). The baseline is the control's R
 * (all variants' pooled when no control is known) and the units per user its ȳ.
 */
import { ratioEstimate } from './delta-method.js';
import type { MetricName } from '../metrics.js';
import type { VariantAccumulator } from './variant-accumulator.js';

/** The spread, baseline and units per user measured in data. */
export interface MeasuredVariance {
  /** Per-unit standard deviation σ (pooled over variants). */
  sd: number;
  baseline: number;
  units_per_user: number;
  /** Users the figures come from. */
  users: number;
}

/** The delta-method σ, baseline and units per user of `metric` in the data; undefined without 2 users with units in some variant. */
export function measuredVariance(
  accumulators: ReadonlyMap<string, VariantAccumulator>,
  metric: MetricName,
  control?: string,
): MeasuredVariance | undefined {
  let weighted = 0;
  let weights = 0;
  let users = 0;
  let sumX = 0;
  let sumY = 0;
  for (const accumulator of accumulators.values()) {
    const moments = accumulator.moments(metric);
    const estimate = ratioEstimate(moments);
    users += moments.n;
    sumX += moments.sumX;
    sumY += moments.sumY;
    if (estimate.variance === null) continue;
    weighted += (moments.n - 1) * estimate.variance * moments.sumY;
    weights += moments.n - 1;
  }
  if (!(weights > 0) || !(sumY > 0)) return undefined;
  const reference = control === undefined ? undefined : accumulators.get(control)?.moments(metric);
  const base = reference !== undefined && reference.sumY > 0 ? reference : { sumX, sumY, n: users };
  return { sd: Math.sqrt(weighted / weights), baseline: base.sumX / base.sumY, units_per_user: base.sumY / base.n, users };
}
