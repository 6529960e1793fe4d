import { describe, expect, it } from 'vitest';
import { adjustedInterval, analyzeExperiment, type Comparison } from '../../../../src/experiments/stats/analysis.js';
import { normalQuantile, twoSidedPValue } from '../../../../src/experiments/stats/distributions.js';
import { holmIntervalAlphas } from '../../../../src/experiments/stats/holm.js';
import { METRIC_NAMES, emptyCounts } from '../../../../src/experiments/metrics.js';
import { createAccumulators } from '../../../../src/experiments/stats/variant-accumulator.js';
import { accumulate, readFixture, REFERENCE_DATASETS, type ReferenceDataset } from './reference-data.js';

/** |actual − expected| ≤ rel·max(|expected|, tiny): relative agreement. */
function expectRelative(actual: number | null, expected: number, rel: number): void {
  expect(actual).not.toBeNull();
  const scale = Math.max(Math.abs(expected), 1e-300);
  expect(Math.abs((actual as number) - expected) / scale, `${actual} vs ${expected}`).toBeLessThanOrEqual(rel);
}

/** p-values within 1e-6 absolute, and within 1e-6 relative once they are small. */
function expectPValue(actual: number | null, expected: number): void {
  expect(actual).not.toBeNull();
  expect(Math.abs((actual as number) - expected)).toBeLessThanOrEqual(1e-6);
  if (expected < 1e-3) expectRelative(actual, expected, 1e-6);
}

describe.each(REFERENCE_DATASETS)('analyzeExperiment against SciPy reference %s', (name) => {
  const dataset = readFixture<ReferenceDataset>(`reference-${name}.json`);
  const result = analyzeExperiment(dataset.design, accumulate(dataset));
  const expected = dataset.expected;

  it('records where the reference numbers come from', () => {
    expect(dataset.provenance.script).toBe('test/fixtures/stats/generate_reference.py');
    expect(dataset.provenance.scipy).toMatch(/^\d+\.\d+/);
  });

  it('counts users per variant and computes every metric as a ratio of sums', () => {
    expect(result.sample_sizes).toEqual(expected.sample_sizes);
    for (const [variant, metrics] of Object.entries(expected.metrics)) {
      for (const metric of METRIC_NAMES) expectRelative(result.metrics[variant]?.[metric] ?? null, metrics[metric] as number, 1e-12);
    }
  });

  it('matches differences, intervals and effect sizes to 1e-9 and p-values to 1e-6', () => {
    expect(result.comparisons).toHaveLength(expected.comparisons.length);
    for (const ref of expected.comparisons) {
      const ours = result.comparisons.find((c) => c.metric === ref.metric && c.variant === ref.variant) as Comparison;
      expect(ours.control).toBe(ref.control);
      expectRelative(ours.difference, ref.difference, 1e-9);
      expectRelative(ours.standard_error, ref.standard_error, 1e-9);
      expectRelative(ours.ci_low, ref.ci_low, 1e-9);
      expectRelative(ours.ci_high, ref.ci_high, 1e-9);
      expectRelative(ours.effect_size, ref.effect_size, 1e-9);
      expectPValue(ours.p_value, ref.p_value);
      expectPValue(ours.adjusted_p_value, ref.adjusted_p_value);
      expect(ours.significant, `${ref.metric} ${ref.variant}`).toBe(ref.significant);
    }
  });

  it('matches the Holm-consistent adjusted intervals to 1e-9 (null when underpowered)', () => {
    expect(dataset.provenance.adjusted_interval).toMatch(/multipletests\(method='holm'\)/);
    for (const ref of expected.comparisons) {
      const ours = result.comparisons.find((c) => c.metric === ref.metric && c.variant === ref.variant) as Comparison;
      if (ref.adjusted_ci_low === null || ref.adjusted_ci_high === null) {
        expect([ours.adjusted_ci_low, ours.adjusted_ci_high]).toEqual([null, null]);
        continue;
      }
      expectRelative(ours.adjusted_ci_low, ref.adjusted_ci_low, 1e-9);
      expectRelative(ours.adjusted_ci_high, ref.adjusted_ci_high, 1e-9);
    }
  });

  it('never lets the verdict and the adjusted interval disagree', () => {
    for (const c of result.comparisons) {
      const excludesZero = c.adjusted_ci_low !== null && c.adjusted_ci_high !== null && (c.adjusted_ci_low > 0 || c.adjusted_ci_high < 0);
      expect(excludesZero, `${c.metric} ${c.variant}`).toBe(c.significant);
    }
  });

  it('runs the SRM chi-square test and the underpowered rule like the reference', () => {
    expectRelative(result.srm.chi_square, expected.srm.chi_square || 1e-300, expected.srm.chi_square === 0 ? Infinity : 1e-12);
    expectPValue(result.srm.p_value, expected.srm.p_value);
    expect(result.srm.mismatch).toBe(expected.srm.mismatch);
    expect(result.underpowered).toBe(expected.underpowered);
  });

  it('fills the spec shapes for the primary metric from the same comparisons', () => {
    const primary = result.comparisons.filter((c) => c.metric === 'click_through_rate');
    expect(Object.keys(result.statistical_significance)).toEqual(primary.map((c) => `${c.variant}_vs_${c.control}`));
    for (const c of primary) {
      const record = result.statistical_significance[`${c.variant}_vs_${c.control}`];
      expect(record?.p_value).toBe(c.adjusted_p_value);
      expect(record?.confidence_interval).toEqual([c.ci_low, c.ci_high]);
      expect(record?.adjusted_confidence_interval).toEqual(c.adjusted_ci_low === null ? null : [c.adjusted_ci_low, c.adjusted_ci_high]);
      expect(record?.effect_size).toBe(c.effect_size);
      const label = result.underpowered ? 'underpowered' : c.significant ? 'statistically_significant' : 'not_significant';
      expect(record?.significance).toBe(label);
      expect(result.confidence_intervals[`click_through_rate:${c.variant}_vs_${c.control}`]).toEqual([c.ci_low, c.ci_high]);
    }
    expect('click_through_rate' in result.confidence_intervals).toBe(primary.length === 1);
  });
});

describe('analyzeExperiment edge cases', () => {
  const design = {
    variants: [
      { name: 'control', traffic_allocation: 50, is_control: true },
      { name: 'treatment', traffic_allocation: 50, is_control: false },
    ],
    confidence_level: 0.95,
    minimum_sample_size: 1,
  };
  const zero = emptyCounts();

  it('reports nulls, never NaN, with no users at all', () => {
    const result = analyzeExperiment(design, createAccumulators(['control', 'treatment']));
    const json = JSON.stringify(result);
    expect(json).not.toMatch(/NaN|Infinity/);
    expect(result.sample_sizes).toEqual({ control: 0, treatment: 0 });
    expect(result.metrics.control?.click_through_rate).toBeNull();
    expect(result.comparisons[0]).toMatchObject({
      difference: null,
      p_value: null,
      ci_low: null,
      adjusted_ci_low: null,
      adjusted_ci_high: null,
      significant: false,
    });
    expect(result.srm).toEqual({ chi_square: null, p_value: null, mismatch: false });
    expect(result.underpowered).toBe(true);
  });

  it('gives no test when both variants have zero variance, and counts zero-denominator users', () => {
    const accumulators = createAccumulators(['control', 'treatment']);
    for (let i = 0; i < 10; i++) {
      accumulators.get('control')?.add({ ...zero, impressions: 10, clicks: 1 });
      accumulators.get('treatment')?.add({ ...zero, impressions: 10, clicks: 2 });
      accumulators.get('treatment')?.add(zero);
    }
    const result = analyzeExperiment(design, accumulators);
    expect(result.sample_sizes).toEqual({ control: 10, treatment: 20 });
    const ctr = result.comparisons.find((c) => c.metric === 'click_through_rate');
    expect(ctr?.variant_value).toBeCloseTo(0.2, 15);
    expect(ctr?.difference).toBeCloseTo(0.1, 15);
    expect(ctr?.effect_size).toBeCloseTo(1, 12);
    expect(ctr?.standard_error).toBe(0);
    expect(ctr?.p_value).toBeNull();
    expect(ctr?.significant).toBe(false);
    expect([ctr?.adjusted_ci_low, ctr?.adjusted_ci_high]).toEqual([null, null]);
    expect(JSON.stringify(result)).not.toMatch(/NaN|Infinity/);
  });

  it('never calls an underpowered result significant', () => {
    const dataset = readFixture<ReferenceDataset>('reference-srm.json');
    const result = analyzeExperiment(dataset.design, accumulate(dataset));
    const ctr = result.comparisons.find((c) => c.metric === 'click_through_rate');
    expect(ctr?.adjusted_p_value).toBeLessThan(1e-10);
    expect(ctr?.significant).toBe(false);
    expect(ctr?.ci_low).toBeGreaterThan(0);
    expect([ctr?.adjusted_ci_low, ctr?.adjusted_ci_high]).toEqual([null, null]);
    expect(result.statistical_significance.treatment_vs_control?.significance).toBe('underpowered');
    expect(result.statistical_significance.treatment_vs_control?.adjusted_confidence_interval).toBeNull();
    const powered = analyzeExperiment({ ...dataset.design, minimum_sample_size: 100 }, accumulate(dataset));
    expect(powered.comparisons.find((c) => c.metric === 'click_through_rate')?.significant).toBe(true);
  });

  it('rejects data for a variant the experiment does not define, and a design without one control', () => {
    expect(() => analyzeExperiment(design, createAccumulators(['control', 'ghost']))).toThrow(/ghost/);
    const noControl = { ...design, variants: design.variants.map((v) => ({ ...v, is_control: false })) };
    expect(() => analyzeExperiment(noControl, createAccumulators([]))).toThrow(/control/);
  });

  it('uses the requested primary metric for the spec shapes', () => {
    const dataset = readFixture<ReferenceDataset>('reference-two-variant.json');
    const result = analyzeExperiment(dataset.design, accumulate(dataset), { primaryMetric: 'session_duration' });
    const c = result.comparisons.find((x) => x.metric === 'session_duration');
    expect(result.primary_metric).toBe('session_duration');
    expect(result.confidence_intervals.session_duration).toEqual([c?.ci_low, c?.ci_high]);
  });
});

describe('Holm-consistent adjusted intervals', () => {
  it('equal the unadjusted interval, to the last digit, with a single treatment', () => {
    for (const name of ['two-variant', 'strong-effect']) {
      const dataset = readFixture<ReferenceDataset>(`reference-${name}.json`);
      for (const c of analyzeExperiment(dataset.design, accumulate(dataset)).comparisons) {
        expect([c.adjusted_ci_low, c.adjusted_ci_high], `${name} ${c.metric}`).toEqual([c.ci_low, c.ci_high]);
      }
    }
  });

  it("widen three-variant intervals where Holm does not reject, and keep Holm's step level where it does", () => {
    const dataset = readFixture<ReferenceDataset>('reference-three-variant.json');
    const result = analyzeExperiment(dataset.design, accumulate(dataset));
    const find = (metric: string, variant: string) =>
      result.comparisons.find((c) => c.metric === metric && c.variant === variant) as Comparison;
    // bounce_rate fresh: the unadjusted 90% interval excludes 0, Holm does not reject; the Bonferroni (95%) one contains 0.
    const bounce = find('bounce_rate', 'fresh');
    expect([bounce.significant, (bounce.ci_low as number) > 0, (bounce.adjusted_ci_low as number) < 0]).toEqual([false, true, true]);
    // click_through_rate fresh: rejected at step 2 of 2, so its interval is at α/1: the unadjusted one.
    const ctr = find('click_through_rate', 'fresh');
    expect(ctr.significant).toBe(true);
    expect([ctr.adjusted_ci_low, ctr.adjusted_ci_high]).toEqual([ctr.ci_low, ctr.ci_high]);
  });

  it('gives each comparison α/(m − j + 1) when rejected at step j, α/m otherwise, and null without a p-value', () => {
    expect(holmIntervalAlphas([0.001, 0.04, null, 0.3], 0.05)).toEqual([0.05 / 3, 0.05 / 3, null, 0.05 / 3]);
    expect(holmIntervalAlphas([0.02, 0.001, 0.04], 0.05)).toEqual([0.05 / 2, 0.05 / 3, 0.05 / 1]);
    expect(holmIntervalAlphas([0.03], 0.05)).toEqual([0.05]);
  });

  it('keeps verdict and interval together at the exact boundary, where Φ and Φ⁻¹ round apart', () => {
    let rawDisagreements = 0;
    const disagreements: string[] = [];
    for (const alpha of [0.2, 0.1, 0.05, 0.01, 0.001]) {
      for (const m of [1, 2, 3]) {
        for (let step = 1; step <= m; step++) {
          const gamma = alpha / (m - step + 1);
          const critical = normalQuantile(1 - gamma / 2);
          for (const se of [1, 0.001, 3.7e-5, 12.5]) {
            for (let k = -200; k <= 200; k += 2) {
              const difference = critical * se * (1 + k * Number.EPSILON);
              const significant = Math.min(1, (m - step + 1) * twoSidedPValue(difference / se)) < alpha;
              if (difference - critical * se > 0 !== significant) rawDisagreements++;
              const [low, high] = adjustedInterval(difference, se, gamma, significant, false) as [number, number];
              if (low > 0 || high < 0 ? !significant : significant) disagreements.push(`α ${alpha} m ${m} step ${step} se ${se} k ${k}`);
            }
          }
        }
      }
    }
    expect(disagreements).toEqual([]);
    // The sweep does reach the rounding gap that the half-width cap closes.
    expect(rawDisagreements).toBeGreaterThan(0);
  });

  it('is null when underpowered or without a test, and uses the Holm-adjusted decision otherwise', () => {
    expect(adjustedInterval(0.1, 0.01, 0.05, true, true)).toBeNull();
    expect(adjustedInterval(null, 0.01, 0.05, false, false)).toBeNull();
    expect(adjustedInterval(0.1, 0.01, null, false, false)).toBeNull();
  });
});
