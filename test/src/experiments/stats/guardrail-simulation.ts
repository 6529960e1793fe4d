/**
 * A/A experiments with three guardrails (bounce_rate, user_satisfaction, session_duration),
 * each read once: how often is harm flagged on any guardrail when no variant does harm? Shared
 * by the light test in the normal suite and the heavy one behind `npm run test:stats`.
 */
import { analyzeExperiment, type AnalysisDesign } from '../../../../src/experiments/stats/analysis.js';
import { emptyCounts, type MetricName } from '../../../../src/experiments/metrics.js';
import type { AnalysisMethod } from '../../../../src/experiments/stats/sequential.js';
import { createAccumulators, type VariantAccumulator } from '../../../../src/experiments/stats/variant-accumulator.js';
import { createRandom } from '../../../../src/random.js';

export const SIMULATED_GUARDRAILS: MetricName[] = ['bounce_rate', 'user_satisfaction', 'session_duration'];

export interface GuardrailPlan {
  experiments: number;
  usersPerVariant: number;
  alpha: number;
  seed: number;
  method: AnalysisMethod;
}

export interface GuardrailOutcome {
  experiments: number;
  /** Experiments where any guardrail flagged harm (Holm across the three): the family-wise rate. */
  anyHarmFlagged: number;
  /** The same experiments judged by each guardrail's own one-sided p < α, uncorrected. */
  anyUncorrected: number;
}

/** Users that differ from each other (their own bounce, satisfaction and session habits), not by variant. */
function addUsers(accumulator: VariantAccumulator, users: number, random: () => number): void {
  for (let u = 0; u < users; u++) {
    const counts = emptyCounts();
    counts.impressions = 5 + Math.floor(random() * 20);
    for (let i = 0; i < counts.impressions; i++) if (random() < 0.08) counts.clicks++;
    counts.sessions = 1 + Math.floor(random() * 5);
    const bounce = 0.1 + random() * 0.4;
    const seconds = 20 + random() * 80;
    for (let s = 0; s < counts.sessions; s++) {
      if (random() < bounce) counts.bounces++;
      counts.session_seconds += Math.round(seconds * (0.5 + random()));
    }
    const positive = 0.4 + random() * 0.5;
    const feedback = Math.floor(random() * 5);
    for (let f = 0; f < feedback; f++) {
      if (random() < positive) counts.feedback_positive++;
      else counts.feedback_negative++;
    }
    accumulator.add(counts);
  }
}

/** Runs the plan with the project's seeded RNG: the same plan always gives the same counts. */
export function simulateGuardrails(plan: GuardrailPlan): GuardrailOutcome {
  const random = createRandom(plan.seed);
  const design: AnalysisDesign = {
    variants: [
      { name: 'control', traffic_allocation: 50, is_control: true },
      { name: 'treatment', traffic_allocation: 50, is_control: false },
    ],
    confidence_level: 1 - plan.alpha,
    minimum_sample_size: plan.usersPerVariant,
    primary_metric: 'click_through_rate',
    guardrail_metrics: SIMULATED_GUARDRAILS,
  };
  let anyHarmFlagged = 0;
  let anyUncorrected = 0;
  for (let e = 0; e < plan.experiments; e++) {
    const accumulators = createAccumulators(['control', 'treatment']);
    for (const accumulator of accumulators.values()) addUsers(accumulator, plan.usersPerVariant, random);
    const { guardrails } = analyzeExperiment(design, accumulators, { method: plan.method });
    if (guardrails.some((g) => g.harm_detected)) anyHarmFlagged++;
    if (guardrails.some((g) => g.p_value !== null && g.p_value < plan.alpha)) anyUncorrected++;
  }
  return { experiments: plan.experiments, anyHarmFlagged, anyUncorrected };
}
