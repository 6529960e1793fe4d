/**
 * The per-variant figures the gates read, derived from offline or live data, so the
 * server and `recsvc gates check` feed the gates identically; and each figure's interval
 * (gate-intervals.ts), which the bounds rule judges.
 */
import { ratioEstimate } from '../stats/delta-method.js';
import type { PerformanceRecord } from '../io/export-format.js';
import { EXPERIMENT_DEFAULTS } from '../experiment-defaults.js';
import { histogramQuantileInterval, proportionInterval, type GateInterval, type GateIntervalSettings } from './gate-intervals.js';
import type { GateVariantInput } from './gates.js';
import type { MetricName } from '../metrics.js';
import { designEffect } from '../stats/proportions.js';
import { DEFAULT_ANALYSIS_METHOD, UNRECORDED_ANALYSIS_METHOD, isAnalysisMethod } from '../stats/sequential.js';
import type { VariantAccumulator } from '../stats/variant-accumulator.js';

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
 * performance record (null without a record or with 0 requests: no data). Intervals (by the
 * experiment's method; `early_intervals` the same by the sequential method, always valid): CTR,
 * satisfaction and the error rate as proportions (proportionInterval: clicks of impressions and
 * positive answers of answers with their design effect, errors of independent requests), p95's from the
 * histogram (options.latencyHistograms, else the record's latency_histogram; neither: no
 * interval). `units`: impressions, answers, requests, and the histogram's requests.
 */
export function gateInputsFromData(
  variantNames: readonly string[],
  accumulators: ReadonlyMap<string, VariantAccumulator>,
  performance: readonly GatePerformanceRecord[],
  options: GateInputOptions = DEFAULT_GATE_INPUT_OPTIONS,
): GateVariantInput[] {
  const early: GateInputOptions = { ...options, method: 'sequential' };
  return variantNames.map((name) => {
    const accumulator = accumulators.get(name);
    const perf = performance.find((p) => p.variant === name);
    const histogram = options.latencyHistograms?.get(name) ?? histogramOfRecord(perf);
    const hasRequests = perf !== undefined && perf.requests > 0;
    const intervalsBy = (settings: GateInputOptions) => ({
      click_through_rate: shareInterval(accumulator, 'click_through_rate', settings),
      user_satisfaction: shareInterval(accumulator, 'user_satisfaction', settings),
      error_rate: hasRequests ? proportionInterval(perf.errors, perf.requests, settings) : null,
      response_time_p95: histogram === undefined ? null : histogramQuantileInterval(histogram, LATENCY_GATE_QUANTILE, settings),
    });
    const intervals = intervalsBy(options);
    const ratioValue = (metric: MetricName) => (accumulator === undefined ? null : ratioEstimate(accumulator.moments(metric)).value);
    return {
      name,
      users: accumulator?.users ?? 0,
      click_through_rate: ratioValue('click_through_rate'),
      user_satisfaction: ratioValue('user_satisfaction'),
      response_time_p95: perf?.latency_ms_p95 ?? null,
      error_rate: hasRequests ? perf.errors / perf.requests : null,
      intervals,
      early_intervals: options.method === 'sequential' ? intervals : intervalsBy(early),
      units: {
        click_through_rate: accumulator?.moments('click_through_rate').sumY ?? 0,
        user_satisfaction: accumulator?.moments('user_satisfaction').sumY ?? 0,
        ...(perf === undefined ? {} : { error_rate: perf.requests }),
        ...(histogram === undefined ? {} : { response_time_p95: [...histogram.values()].reduce((a, b) => a + b, 0) }),
      },
    };
  });
}

/**
 * A proportion metric's interval: clicks of impressions or positive answers of answers, with the
 * design effect of users who contribute several units (proportions.ts).
 */
function shareInterval(accumulator: VariantAccumulator | undefined, metric: MetricName, settings: GateInputOptions): GateInterval | null {
  if (accumulator === undefined) return null;
  const moments = accumulator.moments(metric);
  if (!(moments.sumY > 0)) return null;
  const sumY2 = moments.m2y + moments.n * moments.meanY ** 2;
  return proportionInterval(moments.sumX, moments.sumY, settings, designEffect(ratioEstimate(moments), sumY2), moments.n);
}
