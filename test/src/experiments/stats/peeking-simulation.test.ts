import { describe, expect, it } from 'vitest';
import { binomialLowerBound, binomialUpperBound, simulatePeeking } from './peeking-simulation.js';

// The light version; the 2,000-experiment one is test/stats/peeking.stats.ts (npm run test:stats).
const PLAN = { experiments: 300, days: 14, usersPerDay: 100, minimumSampleSize: 100, alpha: 0.05, seed: 20261123 };

describe('A/A experiments read daily for 14 days and stopped at the first significant read', () => {
  const outcome = simulatePeeking(PLAN);
  // A count above this is implausible (p ≤ 0.001) if the true rate were 5%.
  const ceiling = binomialUpperBound(PLAN.experiments, PLAN.alpha, 0.001);

  it('keeps the sequential false-positive rate at most 5%', () => {
    expect(ceiling).toBeLessThan(30);
    expect(outcome.stoppedEarly.sequential).toBeLessThanOrEqual(ceiling);
  });

  it('shows why: fixed-horizon reads peeked daily call far more than 5% of A/A experiments significant', () => {
    expect(outcome.stoppedEarly.fixed).toBeGreaterThan(ceiling);
    expect(outcome.stoppedEarly.fixed).toBeGreaterThan(3 * outcome.stoppedEarly.sequential);
  });

  it('while a single planned fixed read stays at about 5% (within the 99.9% binomial band)', () => {
    expect(outcome.finalReadOnly.fixed).toBeGreaterThanOrEqual(binomialLowerBound(PLAN.experiments, PLAN.alpha, 0.0005));
    expect(outcome.finalReadOnly.fixed).toBeLessThanOrEqual(binomialUpperBound(PLAN.experiments, PLAN.alpha, 0.0005));
  });
});
