/**
 * The light version of the satisfaction-gate simulation (heavy: test/stats/satisfaction.stats.ts).
 * 28,000 users of one variant (2,000 a day for 14 days), minimum_sample_size 1,000, 95%, the
 * gate at 0.6, checked after every user; few users answer. Bounds are binomial at a 0.1% tail
 * over the runs, so they hold for any seed.
 */
import { describe, expect, it } from 'vitest';
import { binomialLowerBound, binomialUpperBound } from '../stats/peeking-simulation.js';
import { simulateSatisfactionGate } from './satisfaction-gate-simulation.js';

const PLAN = { runs: 200, users: 28_000, minimumSampleSize: 1000, confidenceLevel: 0.95 };
const ceiling = binomialUpperBound(PLAN.runs, 0.025, 0.001);

describe('a variant truly above the satisfaction gate (0.7 vs 0.6) with 0.2% of users answering', () => {
  const outcome = simulateSatisfactionGate({ ...PLAN, feedbackShare: 0.002, trueSatisfaction: 0.7, seed: 20261140 });

  it('is blocked in at most 2.5% of runs by the service’s gate (score interval, 30-answer minimum)', () => {
    console.log(`satisfaction 0.7, 0.2% answering, ${PLAN.runs} runs: ${JSON.stringify(outcome)}`);
    expect(outcome.blocked.service).toBeLessThanOrEqual(ceiling);
  });

  it('would fail with the delta-method interval the gate used before (a run of agreeing answers collapses it)', () => {
    expect(outcome.blocked.delta).toBeGreaterThan(ceiling);
  });
});

describe('a variant exactly at the gate (0.6) with 0.5% of users answering', () => {
  it('is blocked in at most 2.5% of runs', () => {
    const outcome = simulateSatisfactionGate({ ...PLAN, feedbackShare: 0.005, trueSatisfaction: 0.6, seed: 20261141 });
    expect(outcome.blocked.service).toBeLessThanOrEqual(ceiling);
  });
});

describe('a variant well below the gate (0.45) with 0.5% of users answering', () => {
  it('is blocked in most runs (the gate still has power)', () => {
    const outcome = simulateSatisfactionGate({ ...PLAN, feedbackShare: 0.005, trueSatisfaction: 0.45, seed: 20261142 });
    console.log(`satisfaction 0.45, 0.5% answering: ${JSON.stringify(outcome)}`);
    expect(outcome.blocked.service).toBeGreaterThanOrEqual(binomialLowerBound(PLAN.runs, 0.8, 0.001));
  });
});
