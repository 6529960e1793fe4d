/**
 * The heavy interleaving peeking simulation behind `npm run test:stats`: 2,000 A/A
 * interleaving experiments read every day for 14 days and stopped at the first significant
 * read (test/src/experiments/interleaving/peeking-simulation.ts: users return and keep
 * clicking, so preferences change between reads). Target (issue 13): at most 5% false
 * positives with the sequential method; the fixed-horizon sign test peeked the same way is
 * far above it.
 */
import { describe, expect, it } from 'vitest';
import { binomialUpperBound } from '../src/experiments/stats/peeking-simulation.js';
import { simulateInterleavingPeeking } from '../src/experiments/interleaving/peeking-simulation.js';

const PLANS = [
  { experiments: 2000, days: 14, usersPerDay: 30, minimumSampleSize: 30, alpha: 0.05, seed: 20261124 },
  { experiments: 2000, days: 14, usersPerDay: 40, minimumSampleSize: 100, alpha: 0.05, seed: 20261125 },
];

describe.each(PLANS)('2,000 A/A interleaving experiments peeked daily for 14 days, minimum $minimumSampleSize', (plan) => {
  const outcome = simulateInterleavingPeeking(plan);
  const percent = (count: number) => `${((100 * count) / plan.experiments).toFixed(2)}%`;

  it('reports the measured rates', () => {
    console.log(
      `interleaving, minimum ${plan.minimumSampleSize}: stopped at the first significant daily read: sequential ${percent(outcome.stoppedEarly.sequential)}, ` +
        `fixed ${percent(outcome.stoppedEarly.fixed)}; single final read: fixed ${percent(outcome.finalReadOnly.fixed)}, ` +
        `sequential ${percent(outcome.finalReadOnly.sequential)}`,
    );
    expect(outcome.experiments).toBe(plan.experiments);
  });

  it('keeps the sequential false-positive rate at most 5%', () => {
    expect(outcome.stoppedEarly.sequential / plan.experiments).toBeLessThanOrEqual(0.05);
  });

  it('would fail on fixed-horizon reads: their peeked rate is far above 5%', () => {
    expect(outcome.stoppedEarly.fixed).toBeGreaterThan(binomialUpperBound(plan.experiments, plan.alpha, 0.001));
  });
});
