/**
 * The heavy guardrail simulation behind `npm run test:stats`: 2,000 A/A experiments with three
 * guardrails (bounce_rate, user_satisfaction, session_duration), each read once. Target (issue
 * 13): harm falsely flagged on any guardrail in at most 5% of experiments (Holm across the
 * guardrails, one-sided tests); uncorrected one-sided tests are shown far above it.
 */
import { describe, expect, it } from 'vitest';
import { binomialUpperBound } from '../src/experiments/stats/peeking-simulation.js';
import { simulateGuardrails } from '../src/experiments/stats/guardrail-simulation.js';

describe.each(['fixed', 'sequential'] as const)('2,000 A/A experiments with three guardrails (%s)', (method) => {
  const plan = { experiments: 2000, usersPerVariant: 1000, alpha: 0.05, seed: 20261124, method };
  const outcome = simulateGuardrails(plan);
  const ceiling = binomialUpperBound(plan.experiments, plan.alpha, 0.001);

  it('reports the measured rates', () => {
    const percent = (count: number) => `${((100 * count) / plan.experiments).toFixed(2)}%`;
    console.log(
      `${method}: false harm flagged family-wise ${percent(outcome.anyHarmFlagged)}; uncorrected ${percent(outcome.anyUncorrected)}`,
    );
    expect(outcome.experiments).toBe(plan.experiments);
  });

  it('keeps the family-wise rate of false harm flags at most 5% (within the 99.9% binomial band)', () => {
    expect(outcome.anyHarmFlagged).toBeLessThanOrEqual(ceiling);
  });
});
