/**
 * The light version of the gates simulation (heavy: test/stats/gates.stats.ts, `npm run test:stats`).
 * Traffic: 200 new users a day on the variant, 5 impressions each on average (1,000 impressions a
 * day), planned duration 14 days, minimum_sample_size 1,000 (reached on day 5), 95% confidence.
 * Bounds are binomial at a 0.1% tail over the runs, so they hold for any seed, not just this one.
 */
import { describe, expect, it } from 'vitest';
import { simulateGateChecks } from './gates-simulation.js';
import { binomialLowerBound, binomialUpperBound } from '../stats/peeking-simulation.js';

const TRAFFIC = {
  days: 14,
  usersPerDay: 200,
  meanImpressions: 5,
  minimumSampleSize: 1000,
  confidenceLevel: 0.95,
  judges: ['point', 'bounds-fixed', 'bounds-sequential'] as const,
};
const RUNS = 200;

describe('a variant 10% better than the CTR gate (true CTR 0.055), checked every minute for 14 days', () => {
  const outcome = simulateGateChecks({ ...TRAFFIC, runs: RUNS, trueCtr: 0.055, seed: 20261123 });
  const ceiling = binomialUpperBound(RUNS, 0.01, 0.001);

  it('is blocked in at most 1% of runs by the bounds rule with sequential intervals, even checked every minute', () => {
    console.log(`true CTR 0.055, ${RUNS} runs, blocked: ${JSON.stringify(outcome.blocked)}`);
    expect(outcome.blocked['bounds-sequential'].minute).toBeLessThanOrEqual(ceiling);
    expect(outcome.blocked['bounds-sequential'].daily).toBeLessThanOrEqual(ceiling);
  });

  it('would fail on the point rule: blocked in far more than 1% of runs, checked every minute or daily', () => {
    expect(outcome.blocked.point.minute).toBeGreaterThan(ceiling);
    expect(outcome.blocked.point.daily).toBeGreaterThan(ceiling);
  });
});

describe('a variant 20% worse than the CTR gate (true CTR 0.04)', () => {
  const outcome = simulateGateChecks({ ...TRAFFIC, runs: RUNS, trueCtr: 0.04, seed: 20261124 });
  const floor = binomialLowerBound(RUNS, 0.8, 0.001);

  it('is blocked within the planned 14 days in at least 80% of runs by the bounds rule with sequential intervals', () => {
    console.log(
      `true CTR 0.04, ${RUNS} runs, blocked: ${JSON.stringify(outcome.blocked)}, median day: ${JSON.stringify(outcome.medianBlockDay)}`,
    );
    expect(outcome.blocked['bounds-sequential'].minute).toBeGreaterThanOrEqual(floor);
    expect(outcome.blocked['bounds-sequential'].daily).toBeGreaterThanOrEqual(floor);
  });
});

/**
 * Issue 30: a broken variant should not keep its traffic until the minimum. 100 users a day for
 * 14 days against a minimum of 2,000: the minimum is never reached. Waiting for it (as before)
 * blocks nothing; the service's decisive failure on the always-valid interval blocks a variant 20%
 * below the gate in most runs, and one exactly at the gate in at most γ/2 = 2.5% of runs, checked
 * after every user from the first.
 */
describe('a decisive failure before a minimum that is never reached (100 users a day, minimum 2,000)', () => {
  const EARLY = {
    ...TRAFFIC,
    usersPerDay: 100,
    minimumSampleSize: 2000,
    runs: 100,
    judges: ['bounds-sequential', 'bounds-early'] as const,
  };

  it('blocks a variant 20% below the CTR gate in at least 70% of runs within 14 days; waiting for the minimum blocks none', () => {
    const outcome = simulateGateChecks({ ...EARLY, trueCtr: 0.04, seed: 20261130 });
    console.log(`true CTR 0.04, minimum never reached, 100 runs, blocked: ${JSON.stringify(outcome.blocked)}`);
    expect(outcome.blocked['bounds-sequential'].minute).toBe(0);
    expect(outcome.blocked['bounds-early'].minute).toBeGreaterThanOrEqual(binomialLowerBound(100, 0.7, 0.001));
  });

  it('blocks a variant exactly at the gate in at most 2.5% of runs, checked after every user', () => {
    const outcome = simulateGateChecks({ ...EARLY, trueCtr: 0.05, seed: 20261131 });
    expect(outcome.blocked['bounds-early'].minute).toBeLessThanOrEqual(binomialUpperBound(100, 0.025, 0.001));
  });
});
