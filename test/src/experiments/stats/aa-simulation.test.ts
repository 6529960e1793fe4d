import { describe, expect, it } from 'vitest';
import { analyzeExperiment } from '../../../../src/experiments/stats/analysis.js';
import { emptyCounts } from '../../../../src/experiments/metrics.js';
import { createAccumulators } from '../../../../src/experiments/stats/variant-accumulator.js';
import { createRandom as seededRandom } from '../../../../src/random.js';

const EXPERIMENTS = 400;
const USERS_PER_VARIANT = 300;
const ALPHA = 0.05;

/** ln C(n, k) + k ln p + (n − k) ln(1 − p): the binomial log-probability of k. */
function binomialLogPmf(k: number, n: number, p: number): number {
  let logChoose = 0;
  for (let i = 1; i <= k; i++) logChoose += Math.log((n - k + i) / i);
  return logChoose + k * Math.log(p) + (n - k) * Math.log(1 - p);
}

/** The central interval [lo, hi] holding the Binomial(n, p) count with probability ≥ 1 − tail. */
function binomialBand(n: number, p: number, tail: number): [number, number] {
  const pmf = Array.from({ length: n + 1 }, (_, k) => Math.exp(binomialLogPmf(k, n, p)));
  let lo = 0;
  for (let below = 0; below + (pmf[lo] as number) <= tail / 2; lo++) below += pmf[lo] as number;
  let hi = n;
  for (let above = 0; above + (pmf[hi] as number) <= tail / 2; hi--) above += pmf[hi] as number;
  return [lo, hi];
}

describe('A/A simulation', () => {
  it('calls about 5% of A/A experiments significant (within the 99.9% binomial band)', () => {
    const random = seededRandom(20240611);
    const design = {
      variants: [
        { name: 'control', traffic_allocation: 50, is_control: true },
        { name: 'treatment', traffic_allocation: 50, is_control: false },
      ],
      confidence_level: 1 - ALPHA,
      minimum_sample_size: 100,
    };
    let significant = 0;
    let pSum = 0;
    for (let e = 0; e < EXPERIMENTS; e++) {
      const accumulators = createAccumulators(['control', 'treatment']);
      for (const accumulator of accumulators.values()) {
        for (let u = 0; u < USERS_PER_VARIANT; u++) {
          // Users differ (heterogeneous click propensity), variants do not: the null is true.
          const counts = emptyCounts();
          counts.impressions = Math.floor(random() * 25);
          const propensity = 0.02 + random() * 0.2;
          for (let i = 0; i < counts.impressions; i++) if (random() < propensity) counts.clicks++;
          accumulator.add(counts);
        }
      }
      const result = analyzeExperiment(design, accumulators);
      const ctr = result.comparisons.find((c) => c.metric === 'click_through_rate');
      if (ctr?.significant) significant++;
      pSum += ctr?.p_value ?? Number.NaN;
    }
    const [lo, hi] = binomialBand(EXPERIMENTS, ALPHA, 0.001);
    expect(lo).toBeGreaterThan(5);
    expect(hi).toBeLessThan(40);
    expect(significant).toBeGreaterThanOrEqual(lo);
    expect(significant).toBeLessThanOrEqual(hi);
    // Under the null, p-values are uniform: their mean is 1/2 with SD √(1/12/400) ≈ 0.0144.
    expect(Math.abs(pSum / EXPERIMENTS - 0.5)).toBeLessThan(4 * Math.sqrt(1 / 12 / EXPERIMENTS));
  });
});
