/** The gates endpoint's body from an experiment's data (gate-report.ts): rule, intervals, the response schema. */
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { DEFAULT_GATE_THRESHOLDS } from '../../../../src/experiments/experiment-defaults.js';
import { ExperimentGatesSchema } from '../../../../src/experiments/gates/experiment-gates.schema.js';
import type { Experiment } from '../../../../src/experiments/experiment-response.schema.js';
import { experimentGatesReport } from '../../../../src/experiments/gates/gate-report.js';
import { histogramQuantile, latencyBucketOf } from '../../../../src/experiments/stats/latency-histogram.js';
import { emptyCounts } from '../../../../src/experiments/metrics.js';
import { createAccumulators } from '../../../../src/experiments/stats/variant-accumulator.js';

const weights = { author_preference: 1, content_engagement: 0, recency: 0, semantic_similarity: 0 };
const variant = (name: string, is_control: boolean) => ({
  name,
  description: '',
  traffic_allocation: 50,
  algorithm_config: { weights },
  is_control,
  blocked: false,
  blocked_reason: null,
});
const experiment = (analysis_method: 'fixed' | 'sequential'): Experiment => ({
  id: 5,
  name: 'e',
  description: '',
  status: 'ACTIVE',
  traffic_percentage: 100,
  minimum_sample_size: 1000,
  confidence_level: 0.95,
  primary_metric: 'click_through_rate',
  analysis_method,
  gates: { ...DEFAULT_GATE_THRESHOLDS },
  variants: [variant('control', true), variant('treatment', false)],
  created_at: '2026-11-01T00:00:00.000Z',
  updated_at: '2026-11-01T00:00:00.000Z',
  started_at: '2026-11-01T00:00:00.000Z',
  ended_at: null,
});

/** 1,500 users a variant: the control at CTR 0.08, the treatment at 0.0505 (just above the gate). */
function data() {
  const accumulators = createAccumulators(['control', 'treatment']);
  for (let u = 0; u < 1500; u++) {
    accumulators.get('control')?.add({ ...emptyCounts(), impressions: 25, clicks: 2, feedback_positive: 7, feedback_negative: u % 2 });
    accumulators
      .get('treatment')
      ?.add({ ...emptyCounts(), impressions: 200, clicks: u % 2 === 0 ? 5 : 15, feedback_positive: 7, feedback_negative: u % 2 });
  }
  // 90% of latencies at ~90 ms and 10% at ~450 ms: p95 in (400, 500], above 200 ms however read.
  const histogram = new Map([
    [latencyBucketOf(90), 27_000],
    [latencyBucketOf(450), 3_000],
  ]);
  const performance = ['control', 'treatment'].map((name) => ({
    variant: name,
    requests: 30_000,
    errors: 30,
    latency_ms_p95: histogramQuantile(histogram, 0.95),
    cache_hits: 0,
    cache_lookups: 0,
  }));
  return {
    accumulators,
    performance,
    latencyHistograms: new Map([
      ['control', histogram],
      ['treatment', histogram],
    ]),
  };
}

describe('experimentGatesReport', () => {
  it('judges on bounds by default, with the experiment method named, and matches the response schema', () => {
    const { accumulators, performance, latencyHistograms } = data();
    const report = experimentGatesReport(experiment('sequential'), accumulators, performance, { latencyHistograms });
    expect(Value.Check(ExperimentGatesSchema, report), JSON.stringify([...Value.Errors(ExperimentGatesSchema, report)][0])).toBe(true);
    expect(report).toMatchObject({ rule: 'bounds', interval: { method: 'sequential', confidence_level: 0.95 }, verdict: 'fail' });
    const treatment = report.variants[1];
    const ctr = treatment?.gates.find((g) => g.gate === 'min_click_through_rate');
    expect(ctr).toMatchObject({ verdict: 'inconclusive', reason: 'interval spans threshold', rule: 'bounds' });
    expect(ctr?.value).toBeCloseTo(0.05, 12);
    const p95 = treatment?.gates.find((g) => g.gate === 'max_response_time_p95');
    expect(p95).toMatchObject({ verdict: 'fail', ci_low: 400, ci_high: 500 });
  });

  it('judges the point value with rule point, and a fixed experiment gets fixed intervals', () => {
    const { accumulators, performance, latencyHistograms } = data();
    const point = experimentGatesReport(experiment('sequential'), accumulators, performance, { rule: 'point', latencyHistograms });
    expect(point.rule).toBe('point');
    expect(point.variants[1]?.gates.find((g) => g.gate === 'min_click_through_rate')).toMatchObject({ verdict: 'pass' });
    // Point: the interpolated p95 of the histogram, 400 + 100·(28,500 − 27,000)/3,000, and no interval.
    const p95 = point.variants[1]?.gates.find((g) => g.gate === 'max_response_time_p95');
    expect(p95).toMatchObject({ verdict: 'fail', value: 450 });
    expect(p95).not.toHaveProperty('ci_high');
    const fixed = experimentGatesReport(experiment('fixed'), accumulators, performance, { latencyHistograms });
    expect(fixed.interval).toEqual({ method: 'fixed', confidence_level: 0.95 });
  });
});
