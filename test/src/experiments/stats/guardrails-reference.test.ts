/**
 * Guardrail metrics against reference values computed by an independent implementation
 * (test/fixtures/stats/generate_guardrails.py: Python's standard library only, provenance in
 * the fixture), fixed and sequential; the roles and the decision drawn from the primary alone.
 */
import { describe, expect, it } from 'vitest';
import { analyzeExperiment, type AnalysisDesign } from '../../../../src/experiments/stats/analysis.js';
import { guardrailResults, FIXED_ONE_SIDED } from '../../../../src/experiments/stats/guardrails.js';
import type { AnalysisMethod } from '../../../../src/experiments/stats/sequential.js';
import { accumulate, readFixture, type ReferenceDataset } from './reference-data.js';

interface ExpectedGuardrail {
  metric: string;
  variant: string;
  harm_direction: string;
  difference: number;
  p_value: number;
  adjusted_p_value: number;
  bound_level: number;
  harm_bound: number;
  harm_detected: boolean;
}
type GuardrailDataset = Omit<ReferenceDataset, 'expected'> & {
  design: AnalysisDesign;
  expected: Record<AnalysisMethod, ExpectedGuardrail[]>;
};

const dataset = readFixture<GuardrailDataset>('reference-guardrails.json');
const close = (actual: number | null, expected: number) => expect(actual).toBeCloseTo(expected, 9);

describe.each(['fixed', 'sequential'] as const)('guardrails (%s) against the Python reference', (method) => {
  const result = analyzeExperiment(dataset.design, accumulate(dataset as unknown as ReferenceDataset), { method });

  it('tests each guardrail one-sided for harm, Holm-corrected across the guardrail family', () => {
    expect(result.guardrails).toHaveLength(dataset.expected[method].length);
    for (const expected of dataset.expected[method]) {
      const actual = result.guardrails.find((g) => g.metric === expected.metric && g.variant === expected.variant);
      expect(actual, `${expected.metric} ${expected.variant}`).toBeDefined();
      if (actual === undefined) continue;
      expect(actual.harm_direction).toBe(expected.harm_direction);
      expect(actual.correction).toBe('holm');
      close(actual.difference, expected.difference);
      close(actual.p_value, expected.p_value);
      close(actual.adjusted_p_value, expected.adjusted_p_value);
      close(actual.bound_level, expected.bound_level);
      close(actual.harm_bound, expected.harm_bound);
      expect(actual.harm_detected, `${expected.metric} ${expected.variant}`).toBe(expected.harm_detected);
      // The bound agrees with the verdict: on the harmful side of 0 exactly when harm is detected.
      const harmful = expected.harm_direction === 'increase' ? (actual.harm_bound ?? 0) > 0 : (actual.harm_bound ?? 0) < 0;
      expect(harmful).toBe(actual.harm_detected);
    }
    expect(result.guardrails.filter((g) => g.harm_detected).map((g) => `${g.metric}/${g.variant}`)).toEqual([
      'bounce_rate/harmful',
      'user_satisfaction/harmful',
    ]);
  });

  it('labels every metric: the primary, the guardrails, the rest exploratory', () => {
    expect(result.primary_metric).toBe('click_through_rate');
    expect(result.guardrail_metrics).toEqual(['bounce_rate', 'user_satisfaction', 'session_duration']);
    expect(result.metric_roles).toEqual({
      click_through_rate: 'primary',
      interaction_rate: 'exploratory',
      session_duration: 'guardrail',
      bounce_rate: 'guardrail',
      recommendations_consumed: 'exploratory',
      user_satisfaction: 'guardrail',
    });
    for (const comparison of result.comparisons) expect(comparison.role).toBe(result.metric_roles[comparison.metric]);
  });

  it('draws the decision from the primary metric alone, listing the guardrails that flagged harm', () => {
    const primary = result.comparisons.filter((c) => c.metric === 'click_through_rate');
    expect(result.decision.metric).toBe('click_through_rate');
    expect(result.decision.variants.map((d) => d.variant)).toEqual(['harmful', 'benign']);
    for (const decision of result.decision.variants) {
      const row = primary.find((c) => c.variant === decision.variant);
      expect(decision.outcome).toBe(row?.significant ? ((row.difference ?? 0) > 0 ? 'better' : 'worse') : 'not_significant');
    }
    expect(result.decision.variants[0]?.guardrails_harmed).toEqual(['bounce_rate', 'user_satisfaction']);
    expect(result.decision.variants[1]?.guardrails_harmed).toEqual([]);
  });
});

describe('metric roles', () => {
  const accumulators = accumulate(dataset as unknown as ReferenceDataset);

  it('defaults to bounce_rate and user_satisfaction as guardrails, and never makes the primary one', () => {
    const { guardrail_metrics, ...rest } = dataset.design as AnalysisDesign & { guardrail_metrics?: string[] };
    void guardrail_metrics;
    expect(analyzeExperiment(rest, accumulators).guardrail_metrics).toEqual(['bounce_rate', 'user_satisfaction']);
    const bouncePrimary = analyzeExperiment(rest, accumulators, { primaryMetric: 'bounce_rate' });
    expect(bouncePrimary.guardrail_metrics).toEqual(['user_satisfaction']);
    expect(bouncePrimary.metric_roles.bounce_rate).toBe('primary');
    expect(bouncePrimary.guardrails.every((g) => g.metric === 'user_satisfaction')).toBe(true);
  });

  it('rejects an unknown guardrail metric naming the field', () => {
    expect(() => analyzeExperiment({ ...dataset.design, guardrail_metrics: ['p95_latency_ms'] }, accumulators)).toThrow(
      expect.objectContaining({ field: 'guardrail_metrics' }),
    );
  });

  it('flags nothing while underpowered, and keeps the p-values', () => {
    const result = analyzeExperiment({ ...dataset.design, minimum_sample_size: 10_000 }, accumulators, { method: 'fixed' });
    expect(result.guardrails.some((g) => g.harm_detected)).toBe(false);
    expect(result.guardrails.every((g) => g.harm_bound === null && g.p_value !== null)).toBe(true);
    expect(result.decision.variants.every((d) => d.outcome === 'underpowered')).toBe(true);
  });

  it('one-sided fixed test: p = 1 − Φ(z) in the harmful direction (Φ(1.6448536269514722) = 0.95)', () => {
    const z = 1.6448536269514722;
    const [increase, decrease] = guardrailResults(
      [
        { metric: 'bounce_rate', variant: 't', control: 'c', difference: z, standard_error: 1, n: 100 },
        { metric: 'user_satisfaction', variant: 't', control: 'c', difference: z, standard_error: 1, n: 100 },
      ],
      0.05,
      FIXED_ONE_SIDED,
      false,
    );
    expect(increase?.p_value).toBeCloseTo(0.05, 12);
    expect(decrease?.p_value).toBeCloseTo(0.95, 12);
  });
});
