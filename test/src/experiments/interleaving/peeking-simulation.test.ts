/**
 * The light version of the interleaving peeking simulation (the 2,000-experiment one is
 * test/stats/interleaving-peeking.stats.ts, npm run test:stats): A/A interleaving experiments
 * read daily for 14 days and stopped at the first significant read.
 */
import { describe, expect, it } from 'vitest';
import { binomialUpperBound } from '../stats/peeking-simulation.js';
import { simulateInterleavingPeeking } from './peeking-simulation.js';

const PLAN = { experiments: 300, days: 14, usersPerDay: 30, minimumSampleSize: 30, alpha: 0.05, seed: 20261123 };

describe('A/A interleaving experiments read daily for 14 days and stopped at the first significant read', () => {
  const outcome = simulateInterleavingPeeking(PLAN);
  // A count above this is implausible (p ≤ 0.001) if the true rate were 5%.
  const ceiling = binomialUpperBound(PLAN.experiments, PLAN.alpha, 0.001);

  it('keeps the sequential false-positive rate at most 5%', () => {
    expect(ceiling).toBeLessThan(30);
    expect(outcome.stoppedEarly.sequential).toBeLessThanOrEqual(0.05 * PLAN.experiments);
  });

  it('shows why: the fixed-horizon sign test peeked daily calls far more than 5% of them significant', () => {
    expect(outcome.stoppedEarly.fixed).toBeGreaterThan(ceiling);
    expect(outcome.stoppedEarly.fixed).toBeGreaterThan(3 * outcome.stoppedEarly.sequential);
  });

  it('while a single planned fixed read stays at or below about 5%', () => {
    expect(outcome.finalReadOnly.fixed).toBeLessThanOrEqual(ceiling);
  });
});
