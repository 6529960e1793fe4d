/**
 * SRM and metrics per instance (issue 13): the users of each variant split by the instance
 * of their canonical id (canonical-user-id.ts: the host of `alice@mastodon.social`, the
 * deployment's local label for a bare local id). A broken client or federation path on one
 * instance shows as a sample ratio mismatch there even when the totals look fine.
 */
import { ratioValue } from './delta-method.js';
import { METRIC_NAMES, type MetricName, type UserCounts } from '../metrics.js';
import { sampleRatioMismatch, type SrmResult } from './srm.js';
import { VariantAccumulator } from './variant-accumulator.js';

/**
 * Users an instance needs before its own SRM test is run: with fewer, χ² is not a fair
 * approximation for small allocations and a per-instance alarm would be noise.
 */
export const MIN_INSTANCE_SRM_USERS = 100;

/** One instance's share of the experiment. */
export interface InstanceBreakdown {
  instance: string;
  users: number;
  sample_sizes: Record<string, number>;
  /** The chi-square test of this instance's split against the allocations; null below MIN_INSTANCE_SRM_USERS users. */
  srm: SrmResult | null;
  metrics: Record<string, Record<MetricName, number | null>>;
}

/** Per instance, per variant accumulators, filled user by user. */
export class InstanceAccumulators {
  private readonly byInstance = new Map<string, Map<string, VariantAccumulator>>();

  /** Adds one user of `variant` on `instance`. */
  add(instance: string, variant: string, counts: UserCounts): void {
    this.accumulator(instance, variant).add(counts);
  }

  /** Adds one user from counts in COUNT_KEYS order. */
  addRow(instance: string, variant: string, values: ArrayLike<number>): void {
    this.accumulator(instance, variant).addRow(values);
  }

  /** Instance → variant → accumulator. */
  entries(): ReadonlyMap<string, ReadonlyMap<string, VariantAccumulator>> {
    return this.byInstance;
  }

  private accumulator(instance: string, variant: string): VariantAccumulator {
    let variants = this.byInstance.get(instance);
    if (variants === undefined) {
      variants = new Map();
      this.byInstance.set(instance, variants);
    }
    let accumulator = variants.get(variant);
    if (accumulator === undefined) {
      accumulator = new VariantAccumulator(variant);
      variants.set(variant, accumulator);
    }
    return accumulator;
  }
}

/**
 * Every instance, most users first (then by name): users per variant, the SRM test of that
 * split (χ² goodness of fit against the allocations, as srm.ts) when the instance has at least
 * MIN_INSTANCE_SRM_USERS users, and each variant's ratio-of-sums metric values.
 */
export function instanceBreakdown(
  variants: readonly { name: string; traffic_allocation: number }[],
  byInstance: ReadonlyMap<string, ReadonlyMap<string, VariantAccumulator>>,
): InstanceBreakdown[] {
  const rows = [...byInstance].map(([instance, accumulators]) => {
    const of = (name: string): VariantAccumulator => accumulators.get(name) ?? new VariantAccumulator(name);
    const counts = variants.map((v) => of(v.name).users);
    const users = counts.reduce((a, b) => a + b, 0);
    return {
      instance,
      users,
      sample_sizes: Object.fromEntries(variants.map((v, i) => [v.name, counts[i] ?? 0])),
      srm:
        users < MIN_INSTANCE_SRM_USERS
          ? null
          : sampleRatioMismatch(
              counts,
              variants.map((v) => v.traffic_allocation),
            ),
      metrics: Object.fromEntries(
        variants.map((v) => [v.name, Object.fromEntries(METRIC_NAMES.map((m) => [m, ratioValue(of(v.name).moments(m))]))]),
      ) as Record<string, Record<MetricName, number | null>>,
    };
  });
  return rows.sort((a, b) => b.users - a.users || a.instance.localeCompare(b.instance));
}
