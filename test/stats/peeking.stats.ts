/**
 * The heavy simulation behind `npm run test:stats` (vitest.stats.config.ts): 2,000 A/A
 * experiments read every day for 14 days, stopped at the first significant read. Target
 * (issue 13): at most 5% false positives with the sequential method. Fixed-horizon reads
 * peeked the same way are shown far above it, with decisions from the first day, with the
 * 1,000-user minimum (decisions from day 10), and family-wise with two treatments under Holm.
 */
import { describe, expect, it } from 'vitest';
import { binomialUpperBound, simulatePeeking } from '../src/experiments/stats/peeking-simulation.js';

const PLANS = [
  { experiments: 2000, days: 14, usersPerDay: 100, minimumSampleSize: 100, alpha: 0.05, seed: 20240611, treatments: 1 },
  { experiments: 2000, days: 14, usersPerDay: 100, minimumSampleSize: 1000, alpha: 0.05, seed: 20240612, treatments: 1 },
  // Two treatments: Holm over the family, a false positive is either treatment called significant.
  { experiments: 2000, days: 14, usersPerDay: 100, minimumSampleSize: 100, alpha: 0.05, seed: 20240613, treatments: 2 },
];

describe.each(PLANS)(
  '2,000 A/A experiments peeked daily for 14 days, minimum sample size $minimumSampleSize, treatments $treatments',
  (plan) => {
    const outcome = simulatePeeking(plan);
    const rate = (count: number) => count / plan.experiments;
    const percent = (count: number) => `${(100 * rate(count)).toFixed(2)}%`;
    const ceiling = binomialUpperBound(plan.experiments, plan.alpha, 0.001);

    it('reports the measured rates', () => {
      console.log(
        `minimum ${plan.minimumSampleSize}, ${plan.treatments ?? 1} treatment(s): stopped at the first significant daily read: sequential ${percent(outcome.stoppedEarly.sequential)}, ` +
          `fixed ${percent(outcome.stoppedEarly.fixed)}; single final read: fixed ${percent(outcome.finalReadOnly.fixed)}, ` +
          `sequential ${percent(outcome.finalReadOnly.sequential)}`,
      );
      expect(outcome.experiments).toBe(plan.experiments);
    });

    it('keeps the sequential false-positive rate at most 5%', () => {
      expect(rate(outcome.stoppedEarly.sequential)).toBeLessThanOrEqual(0.05);
    });

    it('would fail on fixed-horizon reads: their peeked rate is far above 5%', () => {
      expect(outcome.stoppedEarly.fixed).toBeGreaterThan(ceiling);
    });
  },
);
