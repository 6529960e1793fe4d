/**
 * The heavy hourly A/A simulation behind `npm run test:stats` (issue 30): 1,500 experiments, 25
 * new users per variant per hour for 14 days (336 reads), minimum 100 users, 8% of users
 * answering, the sequential method. Before issue 30 user_satisfaction was called significant in
 * 6.3% of 300 such experiments (the audit: 7.65% [6.52, 8.90]); the target is at most 5% for
 * every metric, read as often as one likes.
 */
import { describe, expect, it } from 'vitest';
import { METRIC_NAMES } from '../../src/experiments/metrics.js';
import { simulateSparsePeeking } from '../src/experiments/sparse-peeking-simulation.js';

describe('1,500 A/A experiments read hourly for 14 days, 100-user minimum, sparse feedback', () => {
  it('keeps every metric’s false positives (and guardrail harm flags) at most 5%', () => {
    const outcome = simulateSparsePeeking({
      experiments: 1500,
      hours: 336,
      usersPerHour: 25,
      minimumSampleSize: 100,
      feedbackShare: 0.08,
      alpha: 0.05,
      seed: 20261210,
    });
    console.log(`hourly A/A: ${JSON.stringify(outcome)}`);
    for (const metric of METRIC_NAMES) {
      expect(outcome.significant[metric] / outcome.experiments, metric).toBeLessThanOrEqual(0.05);
      expect(outcome.harm[metric] / outcome.experiments, metric).toBeLessThanOrEqual(0.05);
    }
    expect(outcome.earlySatisfaction).toBe(0);
  });
});
