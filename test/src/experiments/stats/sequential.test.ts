import { describe, expect, it } from 'vitest';
import { analyzeExperiment, type AnalysisDesign, type Comparison } from '../../../../src/experiments/stats/analysis.js';
import { normalQuantile } from '../../../../src/experiments/stats/distributions.js';
import {
  alwaysValidPValue,
  confidenceSequenceHalfWidth,
  sequentialTuning,
  type SequentialTuning,
} from '../../../../src/experiments/stats/sequential.js';
import { createAccumulators } from '../../../../src/experiments/stats/variant-accumulator.js';
import { countsOf, readFixture, type ReferenceDataset } from './reference-data.js';

interface SequentialComparison {
  metric: string;
  variant: string;
  control: string;
  difference: number;
  standard_error: number;
  ci_low: number;
  ci_high: number;
  p_value: number;
  adjusted_p_value: number;
  adjusted_ci_low: number | null;
  adjusted_ci_high: number | null;
  significant: boolean;
}

interface SequentialLook {
  dataset: string;
  users_per_variant: Record<string, number>;
  design: AnalysisDesign;
  expected: {
    sample_sizes: Record<string, number>;
    underpowered: boolean;
    sequential_tuning: SequentialTuning;
    comparisons: SequentialComparison[];
  };
}

const reference = readFixture<{ provenance: Record<string, string>; looks: SequentialLook[] }>('reference-sequential.json');
const datasets = new Map<string, ReferenceDataset>();
const datasetOf = (name: string): ReferenceDataset => {
  if (!datasets.has(name)) datasets.set(name, readFixture<ReferenceDataset>(`reference-${name}.json`));
  return datasets.get(name) as ReferenceDataset;
};

/** The first k users of each variant, in file order: the experiment as read part way. */
function accumulateLook(look: SequentialLook) {
  const dataset = datasetOf(look.dataset);
  const accumulators = createAccumulators(look.design.variants.map((v) => v.name));
  const taken = new Map<string, number>();
  for (const row of dataset.users) {
    const seen = taken.get(row[1]) ?? 0;
    if (seen >= (look.users_per_variant[row[1]] ?? 0)) continue;
    taken.set(row[1], seen + 1);
    accumulators.get(row[1])?.add(countsOf(row, dataset.columns));
  }
  return accumulators;
}

/** |actual − expected| ≤ rel·scale. */
function expectClose(actual: number | null, expected: number, scale: number, what: string): void {
  expect(actual, what).not.toBeNull();
  expect(Math.abs((actual as number) - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(1e-9 * scale);
}

describe('sequential analysis against the SciPy mSPRT reference (generate_sequential.py)', () => {
  it('records where the reference numbers come from', () => {
    expect(reference.provenance.script).toBe('test/fixtures/stats/generate_sequential.py');
    expect(reference.provenance.method).toMatch(/brentq/);
    expect(reference.looks.length).toBeGreaterThanOrEqual(16);
  });

  describe.each(reference.looks.map((look, i) => [`${look.dataset} #${i}`, look] as const))('%s', (_name, look) => {
    const result = analyzeExperiment(look.design, accumulateLook(look), { method: 'sequential' });

    it('reads the look and tunes the mixture as the reference does', () => {
      expect(result.analysis_method).toBe('sequential');
      expect(result.sample_sizes).toEqual(look.expected.sample_sizes);
      expect(result.underpowered).toBe(look.expected.underpowered);
      expect(result.sequential_tuning?.target_sample_size).toBe(look.expected.sequential_tuning.target_sample_size);
      expectClose(
        result.sequential_tuning?.rho_squared ?? null,
        look.expected.sequential_tuning.rho_squared,
        look.expected.sequential_tuning.rho_squared,
        'rho²',
      );
    });

    it('matches always-valid p-values, confidence sequences, Holm and adjusted intervals to ~1e-9', () => {
      expect(result.comparisons).toHaveLength(look.expected.comparisons.length);
      for (const ref of look.expected.comparisons) {
        const what = `${ref.metric} ${ref.variant}`;
        const ours = result.comparisons.find((c) => c.metric === ref.metric && c.variant === ref.variant) as Comparison;
        const scale = Math.abs(ref.difference) + ref.standard_error;
        expectClose(ours.difference, ref.difference, scale, `${what} difference`);
        expectClose(ours.ci_low, ref.ci_low, scale, `${what} ci_low`);
        expectClose(ours.ci_high, ref.ci_high, scale, `${what} ci_high`);
        expectClose(ours.p_value, ref.p_value, Math.max(ref.p_value, 1e-300), `${what} p`);
        expectClose(ours.adjusted_p_value, ref.adjusted_p_value, Math.max(ref.adjusted_p_value, 1e-300), `${what} adjusted p`);
        expect(ours.significant, what).toBe(ref.significant);
        if (ref.adjusted_ci_low === null || ref.adjusted_ci_high === null) {
          expect(ours.adjusted_ci_low, what).toBeNull();
          expect(ours.adjusted_ci_high, what).toBeNull();
        } else {
          expectClose(ours.adjusted_ci_low, ref.adjusted_ci_low, scale, `${what} adjusted_ci_low`);
          expectClose(ours.adjusted_ci_high, ref.adjusted_ci_high, scale, `${what} adjusted_ci_high`);
          const excludesZero = (ours.adjusted_ci_low as number) > 0 || (ours.adjusted_ci_high as number) < 0;
          expect(excludesZero, `${what}: verdict and adjusted interval agree`).toBe(ours.significant);
        }
      }
    });
  });
});

describe('the mixture SPRT', () => {
  const tuning = sequentialTuning(0.05, 2000);

  it('rejects at level γ exactly when the level-γ confidence sequence excludes 0', () => {
    for (const n of [10, 300, 2000, 50_000]) {
      for (const gamma of [0.1, 0.05, 0.01, 0.001]) {
        const h = confidenceSequenceHalfWidth(0.02, n, tuning.rho_squared, gamma);
        expect(alwaysValidPValue(h * (1 - 1e-9), 0.02, n, tuning.rho_squared)).toBeGreaterThan(gamma);
        expect(alwaysValidPValue(h * (1 + 1e-9), 0.02, n, tuning.rho_squared)).toBeLessThan(gamma);
      }
    }
  });

  it('is wider than the fixed-horizon interval (the price of reading any time), narrowest relative to it near n*', () => {
    const z = normalQuantile(0.975);
    const ratio = (n: number) => confidenceSequenceHalfWidth(1, n, tuning.rho_squared, 0.05) / z;
    for (const n of [100, 2000, 100_000]) expect(ratio(n)).toBeGreaterThan(1);
    expect(ratio(2000)).toBeCloseTo(1.55, 2);
    expect(ratio(2000)).toBeLessThan(ratio(200));
    expect(ratio(2000)).toBeLessThan(ratio(20_000));
  });

  it('gives p = 1 when the mixture favours the null and underflows to 0 only far in the tail', () => {
    expect(alwaysValidPValue(0, 0.01, 1000, tuning.rho_squared)).toBe(1);
    expect(alwaysValidPValue(0.5, 0.01, 1000, tuning.rho_squared)).toBe(0);
    expect(alwaysValidPValue(0.05, 0.01, 1000, tuning.rho_squared)).toBeGreaterThan(0);
  });
});

describe('which method an analysis uses', () => {
  const dataset = datasetOf('two-variant');
  const accumulate = () => {
    const accumulators = createAccumulators(dataset.design.variants.map((v) => v.name));
    for (const row of dataset.users) accumulators.get(row[1])?.add(countsOf(row, dataset.columns));
    return accumulators;
  };

  it('reads fixed-horizon when nothing is recorded, the recorded method otherwise, and the option over both', () => {
    const unrecorded = analyzeExperiment(dataset.design, accumulate());
    expect(unrecorded).toMatchObject({ analysis_method: 'fixed', sequential_tuning: null });
    const recorded = analyzeExperiment({ ...dataset.design, analysis_method: 'sequential' }, accumulate());
    expect(recorded.analysis_method).toBe('sequential');
    expect(recorded.sequential_tuning?.target_sample_size).toBe(2 * dataset.design.minimum_sample_size);
    const overridden = analyzeExperiment({ ...dataset.design, analysis_method: 'sequential' }, accumulate(), { method: 'fixed' });
    expect(overridden).toEqual(unrecorded);
    for (const [i, c] of recorded.comparisons.entries()) {
      const fixed = unrecorded.comparisons[i] as Comparison;
      expect(c.difference).toBe(fixed.difference);
      expect(c.p_value as number).toBeGreaterThanOrEqual(fixed.p_value as number);
      expect(c.ci_high as number).toBeGreaterThan(fixed.ci_high as number);
    }
  });

  it('refuses a recorded method it does not know, naming the field', () => {
    expect(() => analyzeExperiment({ ...dataset.design, analysis_method: 'bayesian' }, accumulate())).toThrow(
      expect.objectContaining({ field: 'analysis_method', message: expect.stringMatching(/bayesian/) }),
    );
  });
});
