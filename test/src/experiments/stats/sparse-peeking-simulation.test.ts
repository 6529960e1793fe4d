/**
 * The light version of the hourly A/A simulation with sparse feedback (heavy:
 * test/stats/sparse-peeking.stats.ts). 25 new users per variant per hour, minimum 100 users (reached
 * in the 4th hour, when each arm has about 8 answers), 8% of users answering, read every hour for 7
 * days with the sequential method. Before issue 30 user_satisfaction was called significant in
 * 6-8% of such experiments, mostly in the first hours; now no metric's comparison may be
 * significant before both arms have MINIMUM_METRIC_UNITS of its units.
 */
import { describe, expect, it } from 'vitest';
import { METRIC_NAMES } from '../../../../src/experiments/metrics.js';
import { binomialUpperBound } from './peeking-simulation.js';
import { simulateSparsePeeking } from './sparse-peeking-simulation.js';

describe('100 A/A experiments read hourly for a week, 100-user minimum, sparse feedback', () => {
  const outcome = simulateSparsePeeking({
    experiments: 100,
    hours: 168,
    usersPerHour: 25,
    minimumSampleSize: 100,
    feedbackShare: 0.08,
    alpha: 0.05,
    seed: 20261150,
  });

  it('calls no metric significant in more than 5% of experiments, and nothing before 30 answers', () => {
    console.log(`hourly A/A, 100 experiments: ${JSON.stringify(outcome)}`);
    const ceiling = binomialUpperBound(outcome.experiments, 0.05, 0.001);
    for (const metric of METRIC_NAMES) {
      expect(outcome.significant[metric], metric).toBeLessThanOrEqual(ceiling);
      expect(outcome.harm[metric], metric).toBeLessThanOrEqual(ceiling);
    }
    expect(outcome.earlySatisfaction).toBe(0);
  });
});
