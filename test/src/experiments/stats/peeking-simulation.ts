/**
 * A/A experiments read every day and stopped at the first significant read: the way
 * operators use `status` / `analyze`. Shared by the light test in the normal suite
 * (peeking-simulation.test.ts) and the heavy one behind `npm run test:stats`.
 */
import { analyzeExperiment, type AnalysisDesign } from '../../../../src/experiments/stats/analysis.js';
import { emptyCounts } from '../../../../src/experiments/metrics.js';
import type { AnalysisMethod } from '../../../../src/experiments/stats/sequential.js';
import { createAccumulators, type VariantAccumulator } from '../../../../src/experiments/stats/variant-accumulator.js';
import { createRandom } from '../../../../src/random.js';

export interface PeekingPlan {
  experiments: number;
  days: number;
  /** New users per variant per day. */
  usersPerDay: number;
  minimumSampleSize: number;
  alpha: number;
  seed: number;
  /** Treatments beside the control (default 1); with more, Holm over them, counted family-wise. */
  treatments?: number;
}

/** Experiments where any treatment was ever significant on the primary metric (CTR) at a daily read, per method; and at the last read only. */
export interface PeekingOutcome {
  experiments: number;
  stoppedEarly: Record<AnalysisMethod, number>;
  finalReadOnly: Record<AnalysisMethod, number>;
}

/** One day's users of one variant: users differ (heterogeneous click propensity), variants do not (the null is true). */
function addUsers(accumulator: VariantAccumulator, users: number, random: () => number): void {
  for (let u = 0; u < users; u++) {
    const counts = emptyCounts();
    counts.impressions = Math.floor(random() * 25);
    const propensity = 0.02 + random() * 0.2;
    for (let i = 0; i < counts.impressions; i++) if (random() < propensity) counts.clicks++;
    accumulator.add(counts);
  }
}

/** Runs the plan with the project's seeded RNG (src/random.ts): the same plan always gives the same counts. */
export function simulatePeeking(plan: PeekingPlan): PeekingOutcome {
  const random = createRandom(plan.seed);
  const names = ['control', ...Array.from({ length: plan.treatments ?? 1 }, (_, i) => `treatment${i + 1}`)];
  const design: AnalysisDesign = {
    variants: names.map((name, i) => ({ name, traffic_allocation: 100 / names.length, is_control: i === 0 })),
    confidence_level: 1 - plan.alpha,
    minimum_sample_size: plan.minimumSampleSize,
  };
  const methods: AnalysisMethod[] = ['fixed', 'sequential'];
  const stoppedEarly = { fixed: 0, sequential: 0 };
  const finalReadOnly = { fixed: 0, sequential: 0 };
  for (let e = 0; e < plan.experiments; e++) {
    const accumulators = createAccumulators(names);
    const stopped = new Set<AnalysisMethod>();
    for (let day = 1; day <= plan.days; day++) {
      for (const accumulator of accumulators.values()) addUsers(accumulator, plan.usersPerDay, random);
      for (const method of methods) {
        const result = analyzeExperiment(design, accumulators, { method });
        const significant = result.comparisons.some((c) => c.metric === 'click_through_rate' && c.significant);
        if (significant) stopped.add(method);
        if (significant && day === plan.days) finalReadOnly[method]++;
      }
    }
    for (const method of stopped) stoppedEarly[method]++;
  }
  return { experiments: plan.experiments, stoppedEarly, finalReadOnly };
}

/** ln C(n, k) + k ln p + (n − k) ln(1 − p): the binomial log-probability of k. */
function binomialLogPmf(k: number, n: number, p: number): number {
  let logChoose = 0;
  for (let i = 1; i <= k; i++) logChoose += Math.log((n - k + i) / i);
  return logChoose + k * Math.log(p) + (n - k) * Math.log(1 - p);
}

/** The smallest k with P(Binomial(n, p) > k) ≤ tail: a count above it is implausible at rate p. */
export function binomialUpperBound(n: number, p: number, tail: number): number {
  let above = 1;
  for (let k = 0; k <= n; k++) {
    above -= Math.exp(binomialLogPmf(k, n, p));
    if (above <= tail) return k;
  }
  return n;
}

/** The largest k with P(Binomial(n, p) < k) ≤ tail: a count below it is implausible at rate p. */
export function binomialLowerBound(n: number, p: number, tail: number): number {
  let below = 0;
  for (let k = 0; k <= n; k++) {
    const next = below + Math.exp(binomialLogPmf(k, n, p));
    if (next > tail) return k;
    below = next;
  }
  return n;
}
