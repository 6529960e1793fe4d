/**
 * The per-variant figures the gates read, derived from offline or live data, so the
 * server and `recsvc gates check` feed the gates identically; and each figure's interval
 * (gate-intervals.ts), which the bounds rule judges.
 */
import { ratioEstimate } from './delta-method.js';
import type { PerformanceRecord } from './export-format.js';
import { EXPERIMENT_DEFAULTS } from './experiment-defaults.js';
import { histogramQuantileInterval, proportionInterval, ratioInterval, type GateIntervalSettings } from './gate-intervals.js';
import type { GateVariantInput } from './gates.js';
import type { MetricName } from './metrics.js';
import { DEFAULT_ANALYSIS_METHOD, UNRECORDED_ANALYSIS_METHOD, isAnalysisMethod } from './sequential.js';
import type { VariantAccumulator } from './variant-accumulator.js';

/** The quantile the latency gate reads. */
export const LATENCY_GATE_QUANTILE = 0.95;

/** What the intervals need beyond the data: the experiment's method, confidence and minimum; and latency histograms if kept. */
export interface GateInputOptions extends GateIntervalSettings {
  /** Per variant: latency counts per bucket index (latency-histogram.ts); without one, p95 has no interval. */
  latencyHistograms?: ReadonlyMap<string, ReadonlyMap<number, number>> | undefined;
}

/**
 * A variant's performance record, which may carry its latency histogram as the counts per
 * bucket index (latency-histogram.ts) keyed by the index in decimal — the JSON form an
 * export's performance line can hold.
 */
export type GatePerformanceRecord = PerformanceRecord & { latency_histogram?: Readonly<Record<string, number>> | undefined };

/** Without options: an experiment's defaults (sequential, 95%, 1,000 users). */
export const DEFAULT_GATE_INPUT_OPTIONS: GateInputOptions = {
  method: DEFAULT_ANALYSIS_METHOD,
  confidenceLevel: EXPERIMENT_DEFAULTS.confidence_level,
  minimumSampleSize: EXPERIMENT_DEFAULTS.minimum_sample_size,
};

/**
 * The options for an experiment (or an offline design): its confidence level, minimum sample
 * size and recorded method (unrecorded: fixed, as the analysis reads it).
 */
export function gateInputOptionsFor(
  design: { analysis_method?: string | undefined; confidence_level: number; minimum_sample_size: number },
  latencyHistograms?: ReadonlyMap<string, ReadonlyMap<number, number>>,
): GateInputOptions {
  return {
    method: isAnalysisMethod(design.analysis_method) ? design.analysis_method : UNRECORDED_ANALYSIS_METHOD,
    confidenceLevel: design.confidence_level,
    minimumSampleSize: design.minimum_sample_size,
    latencyHistograms,
  };
}

/** The histogram a performance record carries, as counts per bucket index; undefined without one. */
function histogramOfRecord(perf: GatePerformanceRecord | undefined): Map<number, number> | undefined {
  if (perf?.latency_histogram === undefined) return undefined;
  return new Map(Object.entries(perf.latency_histogram).map(([bucket, count]) => [Number(bucket), count]));
}

/**
 * Per variant: users and click_through_rate, user_satisfaction (ratios of sums) from the
 * accumulator; response_time_p95 = latency_ms_p95 and error_rate = errors / requests from its
 * performance record (null without a record or with 0 requests: no data). Intervals: the ratios'
 * by the delta method over users, the error rate's over requests, p95's from the histogram
 * (options.latencyHistograms, else the record's latency_histogram; neither: no interval).
 */
export function gateInputsFromData(
  variantNames: readonly string[],
  accumulators: ReadonlyMap<string, VariantAccumulator>,
  performance: readonly GatePerformanceRecord[],
  options: GateInputOptions = DEFAULT_GATE_INPUT_OPTIONS,
): GateVariantInput[] {
  return variantNames.map((name) => {
    const accumulator = accumulators.get(name);
    const perf = performance.find((p) => p.variant === name);
    const ratio = (metric: MetricName) => {
      if (accumulator === undefined) return { value: null, interval: null };
      const estimate = ratioEstimate(accumulator.moments(metric));
      return { value: estimate.value, interval: ratioInterval(estimate.value, estimate.variance, estimate.n, options) };
    };
    const ctr = ratio('click_through_rate');
    const satisfaction = ratio('user_satisfaction');
    const histogram = options.latencyHistograms?.get(name) ?? histogramOfRecord(perf);
    const hasRequests = perf !== undefined && perf.requests > 0;
    return {
      name,
      users: accumulator?.users ?? 0,
      click_through_rate: ctr.value,
      user_satisfaction: satisfaction.value,
      response_time_p95: perf?.latency_ms_p95 ?? null,
      error_rate: hasRequests ? perf.errors / perf.requests : null,
      intervals: {
        click_through_rate: ctr.interval,
        user_satisfaction: satisfaction.interval,
        error_rate: hasRequests ? proportionInterval(perf.errors, perf.requests, options) : null,
        response_time_p95: histogram === undefined ? null : histogramQuantileInterval(histogram, LATENCY_GATE_QUANTILE, options),
      },
    };
  });
}
