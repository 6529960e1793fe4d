/**
 * The heavy interleaving simulation behind `npm run test:stats`: 2,000 A/A interleaving
 * experiments of 300 users (both rankers the same, click model of
 * test/src/experiments/interleaving/click-simulation.ts), each read once with the exact sign
 * test at α = 0.05. The discrete sign test is conservative, so the rate sits at or below 5%;
 * a merge that always lets team A pick first is far above it.
 */
import { describe, expect, it } from 'vitest';
import { analyzeInterleaving } from '../../src/experiments/interleaving/analysis.js';
import { interleavedExperiment } from '../src/experiments/interleaving/click-simulation.js';

const RUNS = 2000;

function falsePositives(biased: boolean): number {
  let positives = 0;
  for (let run = 0; run < RUNS; run++) {
    const users = interleavedExperiment(20_261_123 + run, 300, { sameList: true, liftB: 1 }, biased);
    if (analyzeInterleaving(users, { confidenceLevel: 0.95, minimumSampleSize: 1 }).significant) positives++;
  }
  return positives / RUNS;
}

describe('2,000 A/A interleaving experiments', () => {
  it('keep false positives at or below 5% with team draft (sd of the rate: 0.5 points)', () => {
    const rate = falsePositives(false);
    console.log(`interleaving A/A false-positive rate over ${RUNS} experiments: ${(100 * rate).toFixed(2)}%`);
    expect(rate).toBeLessThanOrEqual(0.06);
    expect(rate).toBeGreaterThan(0.02);
  });

  it('would not with a merge that always lets A pick first', () => {
    expect(falsePositives(true)).toBeGreaterThan(0.5);
  });
});
