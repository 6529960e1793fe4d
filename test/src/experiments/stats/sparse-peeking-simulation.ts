/**
 * A/A experiments read every hour with a small minimum and sparse feedback (issue 30): the
 * sequential method must keep each metric's false positives at most α however often it is
 * read. Users differ (heterogeneous click, bounce and satisfaction propensities, heavy-tailed
 * session lengths); few of them answer the feedback question, so in the first hours each arm
 * has a handful of answers. Shared by the light test in the normal suite
 * (sparse-peeking-simulation.test.ts) and the heavy one behind `npm run test:stats`.
 */
import { analyzeExperiment, type AnalysisDesign } from '../../../../src/experiments/stats/analysis.js';
import { emptyCounts, METRIC_NAMES, type MetricName, type UserCounts } from '../../../../src/experiments/metrics.js';
import { createAccumulators, type VariantAccumulator } from '../../../../src/experiments/stats/variant-accumulator.js';
import { createRandom } from '../../../../src/random.js';

export interface SparsePeekingPlan {
  experiments: number;
  hours: number;
  /** New users per variant per hour. */
  usersPerHour: number;
  minimumSampleSize: number;
  /** Probability that a user answers the feedback question at all. */
  feedbackShare: number;
  alpha: number;
  seed: number;
}

export interface SparsePeekingOutcome {
  experiments: number;
  /** Experiments in which the metric's comparison was ever significant at an hourly read. */
  significant: Record<MetricName, number>;
  /** Experiments in which a guardrail ever flagged harm at an hourly read. */
  harm: Record<MetricName, number>;
  /** Of `significant`, the experiments whose first significant read came before the control had 30 answers. */
  earlySatisfaction: number;
}

/** One user; both variants draw from the same population (the null is true). */
export function sparseUser(random: () => number, feedbackShare: number): UserCounts {
  const counts = emptyCounts();
  counts.impressions = Math.floor(random() * 25);
  const clickPropensity = 0.02 + random() * 0.2;
  for (let i = 0; i < counts.impressions; i++) if (random() < clickPropensity) counts.clicks++;
  counts.interactions = Math.min(counts.impressions, random() < 0.3 ? 1 : 0);
  counts.sessions = 1 + Math.floor(random() * 3);
  const bouncePropensity = random() * 0.8;
  for (let s = 0; s < counts.sessions; s++) if (random() < bouncePropensity) counts.bounces++;
  // Heavy-tailed session lengths: log-normal, median 60 s.
  const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  counts.session_seconds = Math.round(counts.sessions * 60 * Math.exp(1.2 * normal));
  if (random() < feedbackShare) {
    const answers = random() < 0.7 ? 1 : 2 + Math.floor(random() * 3);
    const satisfaction = 0.35 + random() * 0.6;
    for (let a = 0; a < answers; a++) {
      if (random() < satisfaction) counts.feedback_positive++;
      else counts.feedback_negative++;
    }
  }
  return counts;
}

function addUsers(accumulator: VariantAccumulator, plan: SparsePeekingPlan, random: () => number): void {
  for (let u = 0; u < plan.usersPerHour; u++) accumulator.add(sparseUser(random, plan.feedbackShare));
}

/** Runs the plan with the project's seeded RNG: the sequential method read every hour. */
export function simulateSparsePeeking(plan: SparsePeekingPlan): SparsePeekingOutcome {
  const random = createRandom(plan.seed);
  const design: AnalysisDesign = {
    variants: [
      { name: 'control', traffic_allocation: 50, is_control: true },
      { name: 'treatment', traffic_allocation: 50, is_control: false },
    ],
    confidence_level: 1 - plan.alpha,
    minimum_sample_size: plan.minimumSampleSize,
    analysis_method: 'sequential',
    guardrail_metrics: METRIC_NAMES.filter((m) => m !== 'click_through_rate'),
  };
  const zero = () => Object.fromEntries(METRIC_NAMES.map((m) => [m, 0])) as Record<MetricName, number>;
  const significant = zero();
  const harm = zero();
  let earlySatisfaction = 0;
  for (let e = 0; e < plan.experiments; e++) {
    const accumulators = createAccumulators(['control', 'treatment']);
    const seen = new Set<string>();
    for (let hour = 1; hour <= plan.hours; hour++) {
      for (const accumulator of accumulators.values()) addUsers(accumulator, plan, random);
      const result = analyzeExperiment(design, accumulators);
      for (const c of result.comparisons) {
        if (!c.significant || seen.has(`s:${c.metric}`)) continue;
        seen.add(`s:${c.metric}`);
        significant[c.metric]++;
        if (c.metric === 'user_satisfaction' && (accumulators.get('control')?.moments('user_satisfaction').sumY ?? 0) < 30)
          earlySatisfaction++;
      }
      for (const g of result.guardrails) {
        if (!g.harm_detected || seen.has(`h:${g.metric}`)) continue;
        seen.add(`h:${g.metric}`);
        harm[g.metric]++;
      }
    }
  }
  return { experiments: plan.experiments, significant, harm, earlySatisfaction };
}
