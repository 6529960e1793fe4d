/**
 * Seeded simulations of interleaving (click model in click-simulation.ts): the false-positive
 * rate when both rankers are the same, and the users needed to detect a ranker whose items
 * get 10% more clicks, against an A/B test of the same rankers on the same click model.
 */
import { describe, expect, it } from 'vitest';
import { analyzeInterleaving } from '../../../../src/experiments/interleaving/analysis.js';
import { normalQuantile, twoSidedPValue } from '../../../../src/experiments/stats/distributions.js';
import { mulberry32 } from '../../../../src/experiments/interleaving/team-draft.js';
import { abUserClicks, interleavedExperiment, type Random } from './click-simulation.js';

const ALPHA = 0.05;
const OPTIONS = { confidenceLevel: 1 - ALPHA, minimumSampleSize: 1 };
const Z_ALPHA = normalQuantile(1 - ALPHA / 2);
const Z_POWER = normalQuantile(0.8);

function falsePositiveRate(experiments: number, users: number, sameList: boolean, biased: boolean): number {
  let positives = 0;
  for (let run = 0; run < experiments; run++) {
    if (analyzeInterleaving(interleavedExperiment(10_000 + run, users, { sameList, liftB: 1 }, biased), OPTIONS).significant) positives++;
  }
  return positives / experiments;
}

/** The two-sample z-test of clicks per user (each user sees the same number of items: the CTR test). */
function abPValue(random: Random, usersPerArm: number, lift: number): number {
  const arms = [1, lift].map((quality) => {
    let sum = 0;
    let squares = 0;
    for (let u = 0; u < usersPerArm; u++) {
      const clicks = abUserClicks(random, quality);
      sum += clicks;
      squares += clicks * clicks;
    }
    const mean = sum / usersPerArm;
    return { mean, variance: (squares - usersPerArm * mean * mean) / (usersPerArm - 1) };
  });
  const [control, treatment] = arms as [(typeof arms)[0], (typeof arms)[0]];
  const se = Math.sqrt((control.variance + treatment.variance) / usersPerArm);
  return twoSidedPValue((treatment.mean - control.mean) / se);
}

describe('interleaving A/A: both rankers the same', () => {
  it('keeps false positives at or below 5% over 600 experiments of 300 users', () => {
    // (Equally good disjoint lists give the very same credits here: the click model sees positions and teams only.)
    const rate = falsePositiveRate(600, 300, true, false);
    console.info(`interleaving A/A false-positive rate: ${rate} over 600 experiments`);
    // The exact sign test is conservative (discrete); 0.07 is about 2 sd above 0.05 over 600 runs.
    expect(rate).toBeLessThanOrEqual(0.07);
    expect(rate).toBeGreaterThan(0.015);
  });

  it('would fail for a biased merge (team A always picks first: position bias favours A)', () => {
    expect(falsePositiveRate(200, 300, true, true)).toBeGreaterThan(0.5);
  });
});

describe('interleaving vs A/B: team B items clicked 10% more', () => {
  it('needs far fewer users than an A/B test of the same rankers, and detects the effect at that size', () => {
    // Per-user quantities from 100,000 simulated users each, then the classic sample-size formulas.
    const big = analyzeInterleaving(interleavedExperiment(7, 100_000, { sameList: false, liftB: 1.1 }), OPTIONS);
    const withPreference = big.winsA + big.winsB;
    const share = big.winsB / withPreference;
    const preferenceNeeded = ((Z_ALPHA * 0.5 + Z_POWER * Math.sqrt(share * (1 - share))) / (share - 0.5)) ** 2;
    const interleavingUsers = Math.ceil(preferenceNeeded / (withPreference / big.users));

    const random = mulberry32(9);
    const moments = [1, 1.1].map((quality) => {
      const clicks = Array.from({ length: 100_000 }, () => abUserClicks(random, quality));
      const mean = clicks.reduce((a, b) => a + b, 0) / clicks.length;
      return { mean, variance: clicks.reduce((a, c) => a + (c - mean) ** 2, 0) / (clicks.length - 1) };
    });
    const [control, treatment] = moments as [(typeof moments)[0], (typeof moments)[0]];
    const abUsersPerArm = ((Z_ALPHA + Z_POWER) ** 2 * (control.variance + treatment.variance)) / (treatment.mean - control.mean) ** 2;
    const abUsers = Math.ceil(2 * abUsersPerArm);
    console.info(
      `interleaving needs ~${interleavingUsers} users for 80% power, an A/B test ~${abUsers} (${(abUsers / interleavingUsers).toFixed(1)}x)`,
    );
    expect(abUsers / interleavingUsers).toBeGreaterThan(3);

    // At the interleaving size, 100 simulated experiments each: interleaving has about its power
    // (the size comes from estimates, so 0.6 leaves room for their error), A/B far less.
    let interleavingHits = 0;
    let abHits = 0;
    const abRandom = mulberry32(11);
    for (let run = 0; run < 100; run++) {
      const result = analyzeInterleaving(interleavedExperiment(50_000 + run, interleavingUsers, { sameList: false, liftB: 1.1 }), OPTIONS);
      if (result.significant && (result.preferenceShare as number) < 0.5) interleavingHits++;
      if (abPValue(abRandom, Math.floor(interleavingUsers / 2), 1.1) < ALPHA) abHits++;
    }
    console.info(`at ${interleavingUsers} users: interleaving power ${interleavingHits / 100}, A/B power ${abHits / 100}`);
    expect(interleavingHits / 100).toBeGreaterThan(0.6);
    expect(abHits / 100).toBeLessThan(0.35);
  });
});
