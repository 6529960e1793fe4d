/**
 * The heavy hourly A/A simulation behind `npm run test:stats` (issue 30): 1,500 experiments, 25
 * new users per variant per hour for 14 days (336 reads), minimum 100 users, 8% of users
 * answering, the sequential method. Before issue 30 user_satisfaction was called significant in
 * 6.3% of 300 such experiments (the audit: 7.65% [6.52, 8.90]); the target is at most 5% for
 * every metric, read as often as one likes.
 */
import { describe, expect, it } from 'vitest';
import { METRIC_NAMES } from '../../src/experiments/metrics.js';
import { simulateSparsePeeking } from '../src/experiments/stats/sparse-peeking-simulation.js';
import { inChunks } from './chunks.js';

describe('1,500 A/A experiments read hourly for 14 days, 100-user minimum, sparse feedback', () => {
  it('keeps every metric’s false positives (and guardrail harm flags) at most 5%', async () => {
    const parts = await inChunks(30, (chunk) =>
      simulateSparsePeeking({
        experiments: 50,
        hours: 336,
        usersPerHour: 25,
        minimumSampleSize: 100,
        feedbackShare: 0.08,
        alpha: 0.05,
        seed: 20261210 + chunk,
      }),
    );
    const sum = (pick: (o: (typeof parts)[number]) => Record<string, number>) =>
      Object.fromEntries(METRIC_NAMES.map((m) => [m, parts.reduce((total, o) => total + (pick(o)[m] ?? 0), 0)]));
    const outcome = {
      experiments: parts.reduce((total, o) => total + o.experiments, 0),
      significant: sum((o) => o.significant),
      harm: sum((o) => o.harm),
      earlySatisfaction: parts.reduce((total, o) => total + o.earlySatisfaction, 0),
    };
    console.log(`hourly A/A: ${JSON.stringify(outcome)}`);
    for (const metric of METRIC_NAMES) {
      expect((outcome.significant[metric] ?? 0) / outcome.experiments, metric).toBeLessThanOrEqual(0.05);
      expect((outcome.harm[metric] ?? 0) / outcome.experiments, metric).toBeLessThanOrEqual(0.05);
    }
    expect(outcome.earlySatisfaction).toBe(0);
  });
});
