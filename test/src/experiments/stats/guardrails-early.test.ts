/** Issue 30: decisive harm on a guardrail is flagged before the users minimum, on the always-valid test only. */
import { describe, expect, it } from 'vitest';
import { analyzeExperiment, type AnalysisDesign } from '../../../../src/experiments/stats/analysis.js';
import { emptyCounts } from '../../../../src/experiments/metrics.js';
import { createAccumulators } from '../../../../src/experiments/stats/variant-accumulator.js';

const design = (method: 'fixed' | 'sequential'): AnalysisDesign => ({
  variants: [
    { name: 'control', traffic_allocation: 50, is_control: true },
    { name: 'treatment', traffic_allocation: 50, is_control: false },
  ],
  confidence_level: 0.95,
  minimum_sample_size: 1000,
  analysis_method: method,
  guardrail_metrics: ['user_satisfaction'],
});

/** 300 users an arm, each answering once: the control satisfied at `control`, the treatment at `treatment` (exact shares). */
function data(control: number, treatment: number, users = 300) {
  const accumulators = createAccumulators(['control', 'treatment']);
  for (const [name, share] of [
    ['control', control],
    ['treatment', treatment],
  ] as const) {
    for (let u = 0; u < users; u++) {
      const counts = emptyCounts();
      counts.impressions = 5;
      if (u < share * users) counts.feedback_positive = 1;
      else counts.feedback_negative = 1;
      accumulators.get(name)?.add(counts);
    }
  }
  return accumulators;
}

describe('guardrail harm before minimum_sample_size', () => {
  it('is flagged early when the always-valid bound is wholly on the harmful side (0.8 → 0.4), whatever the method', () => {
    for (const method of ['fixed', 'sequential'] as const) {
      const result = analyzeExperiment(design(method), data(0.8, 0.4));
      expect(result.underpowered).toBe(true);
      const guardrail = result.guardrails.find((g) => g.metric === 'user_satisfaction');
      expect(guardrail).toMatchObject({ harm_detected: true, early: true });
      expect(guardrail?.harm_bound as number).toBeLessThan(0);
      expect(result.decision.variants[0]?.guardrails_harmed).toEqual(['user_satisfaction']);
    }
  });

  it('is not flagged on a difference the fixed test alone would call (0.8 → 0.72), nor on fewer than 30 answers', () => {
    const mild = analyzeExperiment(design('fixed'), data(0.8, 0.72)).guardrails[0];
    expect(mild).toMatchObject({ harm_detected: false, harm_bound: null });
    expect(mild?.early).toBeUndefined();
    const sparse = analyzeExperiment(design('fixed'), data(1, 0, 20)).guardrails[0];
    expect(sparse).toMatchObject({ harm_detected: false });
  });
});
