/**
 * Does `experiment plan` deliver the power it promises when users differ (issue 30)? A
 * population whose users differ a lot in how often they click (a fifth click at 0.15, the rest
 * at 0.025: CTR 0.05) and in how many impressions they get (1 to 15). A pilot of that population
 * gives the delta-method σ (plan-variance.ts); the plan is made for +20% CTR at 80% power with
 * it, and with the binomial assumption for comparison; then experiments of the planned size are
 * simulated (treatment propensities × 1.2) and read once at the end, by the analysis itself
 * with the method planned for. Shared by the light test and `npm run test:stats`.
 */
import { analyzeExperiment, type AnalysisDesign } from '../../../../src/experiments/stats/analysis.js';
import { emptyCounts } from '../../../../src/experiments/metrics.js';
import { measuredVariance } from '../../../../src/experiments/stats/plan-variance.js';
import { planSampleSize, type Plan } from '../../../../src/experiments/stats/power.js';
import type { AnalysisMethod } from '../../../../src/experiments/stats/sequential.js';
import { createAccumulators, type VariantAccumulator } from '../../../../src/experiments/stats/variant-accumulator.js';
import { createRandom } from '../../../../src/random.js';

const VARIANTS = [
  { name: 'control', traffic_allocation: 50, is_control: true },
  { name: 'treatment', traffic_allocation: 50, is_control: false },
];

function addUser(accumulator: VariantAccumulator, lift: number, random: () => number): void {
  const counts = emptyCounts();
  counts.impressions = 1 + Math.floor(random() * 15);
  const propensity = (random() < 0.2 ? 0.15 : 0.025) * lift;
  for (let i = 0; i < counts.impressions; i++) if (random() < propensity) counts.clicks++;
  accumulator.add(counts);
}

/** The plan for +20% on CTR from a pilot of `pilotUsers` (delta method), or binomial. */
export function planFromPilot(
  pilotUsers: number,
  method: AnalysisMethod,
  variance: 'delta' | 'binomial',
  seed: number,
): { plan: Plan; sd: number } {
  const random = createRandom(seed);
  const pilot = createAccumulators(['control']);
  for (let u = 0; u < pilotUsers; u++) addUser(pilot.get('control') as VariantAccumulator, 1, random);
  const measured = measuredVariance(pilot, 'click_through_rate', 'control');
  if (measured === undefined) throw new Error('no pilot variance');
  const plan = planSampleSize({
    metric: 'click_through_rate',
    baseline: measured.baseline,
    effect: { kind: 'relative', value: 0.2 },
    variants: VARIANTS,
    unitsPerUser: measured.units_per_user,
    method,
    ...(variance === 'delta' ? { sd: measured.sd } : {}),
  });
  return { plan, sd: measured.sd };
}

/** Experiments of `usersPerVariant` per variant read once at the end by `method`: the share significant. */
export function simulatePower(usersPerVariant: number, method: AnalysisMethod, runs: number, seed: number): number {
  const random = createRandom(seed);
  const design: AnalysisDesign = {
    variants: VARIANTS,
    confidence_level: 0.95,
    minimum_sample_size: usersPerVariant,
    analysis_method: method,
    guardrail_metrics: [],
  };
  let significant = 0;
  for (let run = 0; run < runs; run++) {
    const accumulators = createAccumulators(['control', 'treatment']);
    for (let u = 0; u < usersPerVariant; u++) {
      addUser(accumulators.get('control') as VariantAccumulator, 1, random);
      addUser(accumulators.get('treatment') as VariantAccumulator, 1.2, random);
    }
    const result = analyzeExperiment(design, accumulators);
    if (result.comparisons.some((c) => c.metric === 'click_through_rate' && c.significant)) significant++;
  }
  return significant / runs;
}
