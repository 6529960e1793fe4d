/**
 * The light version of the guardrail simulation (the heavy one: test/stats/guardrails.stats.ts):
 * 400 A/A experiments with three guardrails read once. Harm is flagged on some guardrail in at
 * most 5% of them, within the 99.9% binomial band, while the same tests uncorrected would flag
 * about three times as many (so the test fails if the Holm correction is lost).
 */
import { describe, expect, it } from 'vitest';
import { binomialUpperBound } from './peeking-simulation.js';
import { simulateGuardrails } from './guardrail-simulation.js';

describe('A/A experiments with three guardrails', () => {
  const plan = { experiments: 400, usersPerVariant: 400, alpha: 0.05, seed: 20261123 };
  const ceiling = binomialUpperBound(plan.experiments, plan.alpha, 0.001);

  it('flags false harm family-wise in at most 5% of experiments (fixed horizon), not in 3 x 5% as uncorrected tests would', () => {
    const outcome = simulateGuardrails({ ...plan, method: 'fixed' });
    expect(outcome.anyHarmFlagged).toBeLessThanOrEqual(ceiling);
    expect(outcome.anyUncorrected).toBeGreaterThan(ceiling);
  });

  it('flags false harm in at most 5% with the sequential method too', () => {
    const outcome = simulateGuardrails({ ...plan, method: 'sequential' });
    expect(outcome.anyHarmFlagged).toBeLessThanOrEqual(ceiling);
  });
});
