/**
 * The per-variant figures the gates read, derived from offline or live data, so the
 * server and `recsvc gates check` feed the gates identically.
 */
import { ratioValue } from './delta-method.js';
import type { PerformanceRecord } from './export-format.js';
import type { GateVariantInput } from './gates.js';
import type { VariantAccumulator } from './variant-accumulator.js';

/**
 * Per variant: users and click_through_rate, user_satisfaction (ratios of sums) from the
 * accumulator; response_time_p95 = latency_ms_p95 and error_rate = errors / requests from its
 * performance record (null without a record or with 0 requests: no data).
 */
export function gateInputsFromData(
  variantNames: readonly string[],
  accumulators: ReadonlyMap<string, VariantAccumulator>,
  performance: readonly PerformanceRecord[],
): GateVariantInput[] {
  return variantNames.map((name) => {
    const accumulator = accumulators.get(name);
    const perf = performance.find((p) => p.variant === name);
    return {
      name,
      users: accumulator?.users ?? 0,
      click_through_rate: accumulator === undefined ? null : ratioValue(accumulator.moments('click_through_rate')),
      user_satisfaction: accumulator === undefined ? null : ratioValue(accumulator.moments('user_satisfaction')),
      response_time_p95: perf?.latency_ms_p95 ?? null,
      error_rate: perf !== undefined && perf.requests > 0 ? perf.errors / perf.requests : null,
    };
  });
}
