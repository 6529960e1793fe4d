/**
 * The bounds rule's intervals (gate-intervals.ts) against reference values computed independently
 * with SciPy/statsmodels (test/fixtures/stats/generate_gates.py, provenance in the fixture), and the
 * bounds rule's verdicts on them (gates.ts).
 */
import { describe, expect, it } from 'vitest';
import { gateInputsFromData } from '../../../../src/experiments/gates/gate-inputs.js';
import {
  binomialQuantile,
  histogramQuantileInterval,
  intervalMultiplier,
  proportionInterval,
  quantileRanks,
  ratioInterval,
  type GateIntervalSettings,
} from '../../../../src/experiments/gates/gate-intervals.js';
import { explainGateResult } from '../../../../src/experiments/gates/gate-explain.js';
import { evaluateGates, judgeInterval } from '../../../../src/experiments/gates/gates.js';
import { ratioEstimate } from '../../../../src/experiments/stats/delta-method.js';
import { latencyBucketOf } from '../../../../src/experiments/stats/latency-histogram.js';
import { emptyCounts } from '../../../../src/experiments/metrics.js';
import { createAccumulators, VariantAccumulator } from '../../../../src/experiments/stats/variant-accumulator.js';
import { readFixture } from '../stats/reference-data.js';

interface Reference {
  provenance: Record<string, string>;
  proportions: { successes: number; n: number; settings: GateIntervalSettings; interval: [number, number] }[];
  ratios: {
    users: [number, number][];
    results: { settings: GateIntervalSettings; value: number; variance: number; interval: [number, number] }[];
  }[];
  histograms: {
    counts: Record<string, number>;
    q: number;
    results: { settings: GateIntervalSettings; ranks: [number, number]; interval: [number, number | null] }[];
  }[];
  binomial_quantiles: { prob: number; n: number; p: number; k: number }[];
}

const reference = readFixture<Reference>('reference-gates.json');
const sequential95: GateIntervalSettings = { method: 'sequential', confidenceLevel: 0.95, minimumSampleSize: 1000 };

describe('reference values (SciPy/statsmodels, generate_gates.py)', () => {
  it('names its provenance', () => {
    expect(reference.provenance).toMatchObject({ script: 'test/fixtures/stats/generate_gates.py' });
    expect(reference.provenance.scipy).toBeDefined();
  });

  it.each(reference.proportions.map((c) => [`${c.successes}/${c.n} ${c.settings.method} ${c.settings.confidenceLevel}`, c] as const))(
    'proportion %s: Wilson (fixed) or the inverted mixture boundary (sequential)',
    (_name, c) => {
      const interval = proportionInterval(c.successes, c.n, c.settings);
      expect(interval?.low).toBeCloseTo(Math.max(0, c.interval[0]), 10);
      expect(interval?.high).toBeCloseTo(c.interval[1], 10);
    },
  );

  it('ratio intervals by the delta method with the method multiplier', () => {
    for (const dataset of reference.ratios) {
      const accumulator = new VariantAccumulator('v');
      for (const [clicks, impressions] of dataset.users) accumulator.add({ ...emptyCounts(), clicks, impressions });
      const estimate = ratioEstimate(accumulator.moments('click_through_rate'));
      for (const expected of dataset.results) {
        expect(estimate.value).toBeCloseTo(expected.value, 12);
        expect((estimate.variance as number) / expected.variance).toBeCloseTo(1, 9);
        const interval = ratioInterval(estimate.value, estimate.variance, estimate.n, expected.settings);
        expect(interval?.low).toBeCloseTo(expected.interval[0], 9);
        expect(interval?.high).toBeCloseTo(expected.interval[1], 9);
      }
    }
  });

  it('order-statistic ranks and histogram intervals for p95', () => {
    for (const histogram of reference.histograms) {
      const counts = new Map(Object.entries(histogram.counts).map(([bucket, count]) => [Number(bucket), count]));
      const total = [...counts.values()].reduce((a, b) => a + b, 0);
      for (const expected of histogram.results) {
        const ranks = quantileRanks(total, histogram.q, expected.settings);
        expect([ranks.lower, ranks.upper], JSON.stringify(expected.settings)).toEqual(expected.ranks);
        const interval = histogramQuantileInterval(counts, histogram.q, expected.settings);
        expect([interval?.low, interval?.high]).toEqual(expected.interval);
      }
    }
  });

  it.each(reference.binomial_quantiles.map((c) => [`ppf(${c.prob}; ${c.n}, ${c.p})`, c] as const))('binomial quantile %s', (_name, c) => {
    expect(binomialQuantile(c.prob, c.n, c.p)).toBe(c.k);
  });
});

describe('the bounds rule', () => {
  it('passes only a whole interval on the passing side, fails only a whole interval on the wrong side', () => {
    expect(judgeInterval({ low: 0.05, high: 0.06 }, 0.05, '>=')).toBe('pass');
    expect(judgeInterval({ low: 0.048, high: 0.052 }, 0.05, '>=')).toBe('inconclusive');
    expect(judgeInterval({ low: 0.04, high: 0.0499 }, 0.05, '>=')).toBe('fail');
    expect(judgeInterval({ low: 0.001, high: 0.01 }, 0.01, '<=')).toBe('pass');
    expect(judgeInterval({ low: 0.009, high: 0.011 }, 0.01, '<=')).toBe('inconclusive');
    expect(judgeInterval({ low: 0.0101, high: 0.02 }, 0.01, '<=')).toBe('fail');
    // An unbounded end never clears: p95 beyond the last bucket cannot pass, nor fail on its low end alone.
    expect(judgeInterval({ low: 150, high: null }, 200, '<=')).toBe('inconclusive');
    expect(judgeInterval({ low: 250, high: null }, 200, '<=')).toBe('fail');
  });

  it('calls CTR 0.0499 and 0.0501 alike when their intervals are ±0.002 wide (the point rule fails one, passes the other)', () => {
    const variant = (name: string, ctr: number) => ({
      name,
      users: 5000,
      click_through_rate: ctr,
      intervals: { click_through_rate: { low: ctr - 0.002, high: ctr + 0.002 } },
    });
    const variants = [variant('below', 0.0499), variant('above', 0.0501)];
    const only = ['min_click_through_rate'] as const;
    const bounds = evaluateGates({ variants, minimumSampleSize: 1000, only });
    expect(bounds.results.map((r) => [r.variant, r.verdict, r.reason, r.rule])).toEqual([
      ['below', 'inconclusive', 'interval spans threshold', 'bounds'],
      ['above', 'inconclusive', 'interval spans threshold', 'bounds'],
    ]);
    expect(bounds.results[0]).toMatchObject({ ci_low: 0.0479, ci_high: 0.0519 });
    const point = evaluateGates({ variants, minimumSampleSize: 1000, only, rule: 'point' });
    expect(point.results.map((r) => r.verdict)).toEqual(['fail', 'pass']);
    expect(point.results[0]).not.toHaveProperty('ci_low');
  });

  it('is inconclusive without an interval, and still needs minimum_sample_size users', () => {
    const result = evaluateGates({
      variants: [
        { name: 'a', users: 5000, error_rate: 0.001 },
        { name: 'b', users: 10, error_rate: 0.5, intervals: { error_rate: { low: 0.4, high: 0.6 } } },
      ],
      minimumSampleSize: 1000,
      only: ['max_error_rate'],
    });
    expect(result.results.map((r) => r.reason)).toEqual(['no interval', 'underpowered']);
  });

  it('blocks on a wholly failing interval from real data, and widens the sequential interval over the fixed one', () => {
    const accumulators = createAccumulators(['control', 'treatment']);
    for (let u = 0; u < 2000; u++) {
      accumulators.get('control')?.add({ ...emptyCounts(), impressions: 10, clicks: u % 10 === 0 ? 2 : 1 });
      accumulators.get('treatment')?.add({ ...emptyCounts(), impressions: 10, clicks: u % 5 === 0 ? 1 : 0 });
    }
    const perf = [
      { variant: 'control', requests: 50_000, errors: 100, latency_ms_p95: 120, cache_hits: 0, cache_lookups: 0 },
      { variant: 'treatment', requests: 50_000, errors: 1000, latency_ms_p95: 190, cache_hits: 0, cache_lookups: 0 },
    ];
    const histogram = (ms: number) => new Map([[latencyBucketOf(ms), 50_000]]);
    const latencyHistograms = new Map([
      ['control', histogram(120)],
      ['treatment', histogram(190)],
    ]);
    const inputs = gateInputsFromData(['control', 'treatment'], accumulators, perf, { ...sequential95, latencyHistograms });
    const result = evaluateGates({
      variants: inputs,
      minimumSampleSize: 1000,
      only: ['min_click_through_rate', 'max_error_rate', 'max_response_time_p95'],
    });
    const verdicts = result.results.map((r) => `${r.variant} ${r.gate} ${r.verdict}`);
    expect(verdicts).toEqual([
      'control min_click_through_rate pass',
      'control max_error_rate pass',
      'control max_response_time_p95 pass',
      'treatment min_click_through_rate fail',
      'treatment max_error_rate fail',
      'treatment max_response_time_p95 pass',
    ]);
    // Every latency of the treatment lies in (175, 200]: its p95 interval is that bucket.
    expect(result.results[5]).toMatchObject({ ci_low: 175, ci_high: 200 });
    // The same histogram carried on the performance record (an export's JSON form) gives the same interval.
    const carried = perf.map((p) => ({
      ...p,
      latency_histogram: { [String(latencyBucketOf(p.variant === 'control' ? 120 : 190))]: 50_000 },
    }));
    const fromRecords = gateInputsFromData(['control', 'treatment'], accumulators, carried, sequential95);
    expect(fromRecords.map((i) => i.intervals?.response_time_p95)).toEqual(inputs.map((i) => i.intervals?.response_time_p95));
    const fixed = intervalMultiplier({ ...sequential95, method: 'fixed' }, 2000);
    expect(fixed).toBeCloseTo(1.959964, 6);
    expect(intervalMultiplier(sequential95, 2000)).toBeGreaterThan(fixed);
  });
});

describe('explainGateResult', () => {
  const base = { variant: 't', gate: 'min_click_through_rate' as const, value: 0.0499, threshold: 0.05, comparator: '>=' as const };
  it.each([
    [{ ...base, rule: 'point' as const, verdict: 'fail' as const }, 'click_through_rate 0.0499 is below the minimum 0.05'],
    [
      {
        ...base,
        rule: 'bounds' as const,
        ci_low: 0.0479,
        ci_high: 0.0519,
        verdict: 'inconclusive' as const,
        reason: 'interval spans threshold' as const,
      },
      'click_through_rate 0.0499, interval [0.0479, 0.0519], spans the minimum 0.05',
    ],
    [
      { ...base, rule: 'bounds' as const, ci_low: 0.04, ci_high: 0.0499, verdict: 'fail' as const },
      'click_through_rate 0.0499, interval [0.04, 0.0499], is below the minimum 0.05',
    ],
    [
      {
        ...base,
        gate: 'max_response_time_p95' as const,
        value: 150,
        threshold: 200,
        comparator: '<=' as const,
        rule: 'bounds' as const,
        ci_low: 125,
        ci_high: null,
        verdict: 'inconclusive' as const,
        reason: 'interval spans threshold' as const,
      },
      'response_time_p95 150, interval [125, ∞], spans the maximum 200',
    ],
    [
      { ...base, rule: 'bounds' as const, verdict: 'inconclusive' as const, reason: 'no interval' as const },
      'click_through_rate 0.0499 vs the minimum 0.05, but no interval for it yet',
    ],
    [
      { ...base, rule: 'point' as const, value: 0.07, verdict: 'inconclusive' as const, reason: 'underpowered' as const },
      'click_through_rate 0.07 vs the minimum 0.05, but too few users to decide',
    ],
  ])('%#: %s', (result, text) => {
    expect(explainGateResult(result)).toBe(text);
  });
});
