/**
 * The satisfaction gate on sparse feedback (issue 30): one treatment whose users are truly
 * satisfied at 0.7 on average (each user's own propensity uniform on 0.45..0.95), the
 * `min_user_satisfaction` gate at 0.6, checked after every user (the agent checks every minute;
 * only a user who answers, or the user who brings the variant to its minimum, can change the
 * verdict) and blocked at the first `fail`. Few users answer (0.2% or 0.5%), and an answering
 * user gives 1 answer (70%) or 2 to 4, all from the same propensity (answers cluster by user).
 * Judges: `service`, the service's own path (gateInputsFromData with the sequential method:
 * the score-form interval with the design effect, MINIMUM_METRIC_UNITS answers, early failure),
 * and `delta`, the delta-method interval over users that the gate used before issue 30. Shared
 * by the light test in the normal suite and the heavy one behind `npm run test:stats`.
 */
import { ratioEstimate } from '../../../../src/experiments/stats/delta-method.js';
import { gateInputsFromData } from '../../../../src/experiments/gates/gate-inputs.js';
import { ratioInterval } from '../../../../src/experiments/gates/gate-intervals.js';
import { evaluateGate, type GateVariantInput } from '../../../../src/experiments/gates/gates.js';
import { emptyCounts } from '../../../../src/experiments/metrics.js';
import { VariantAccumulator } from '../../../../src/experiments/stats/variant-accumulator.js';
import { createRandom } from '../../../../src/random.js';

export interface SatisfactionGatePlan {
  runs: number;
  /** Users of the variant over the whole run. */
  users: number;
  /** Share of users who answer the feedback question at all. */
  feedbackShare: number;
  /** Mean of the users' satisfaction propensities (uniform on mean ± 0.25). */
  trueSatisfaction: number;
  minimumSampleSize: number;
  confidenceLevel: number;
  seed: number;
}

export const SATISFACTION_JUDGES = ['service', 'delta'] as const;
export type SatisfactionJudge = (typeof SATISFACTION_JUDGES)[number];

export interface SatisfactionGateOutcome {
  runs: number;
  /** Runs blocked (a `fail` at some check), per judge. */
  blocked: Record<SatisfactionJudge, number>;
  /** Of those, blocked before minimum_sample_size users. */
  blockedEarly: Record<SatisfactionJudge, number>;
}

const THRESHOLD = 0.6;

function verdictOf(accumulator: VariantAccumulator, judge: SatisfactionJudge, plan: SatisfactionGatePlan): string {
  const settings = { method: 'sequential', confidenceLevel: plan.confidenceLevel, minimumSampleSize: plan.minimumSampleSize } as const;
  let variant: GateVariantInput;
  if (judge === 'service') {
    variant = gateInputsFromData(['treatment'], new Map([['treatment', accumulator]]), [], settings)[0] as GateVariantInput;
  } else {
    const estimate = ratioEstimate(accumulator.moments('user_satisfaction'));
    const interval = ratioInterval(estimate.value, estimate.variance, estimate.n, settings);
    variant = {
      name: 'treatment',
      users: accumulator.users,
      user_satisfaction: estimate.value,
      intervals: { user_satisfaction: interval },
    };
  }
  return evaluateGate(variant, 'min_user_satisfaction', THRESHOLD, plan.minimumSampleSize, 'bounds').verdict;
}

/** Runs the plan with the project's seeded RNG (src/random.ts). */
export function simulateSatisfactionGate(plan: SatisfactionGatePlan): SatisfactionGateOutcome {
  const random = createRandom(plan.seed);
  const blocked = { service: 0, delta: 0 };
  const blockedEarly = { service: 0, delta: 0 };
  const counts = emptyCounts();
  counts.impressions = 5;
  for (let run = 0; run < plan.runs; run++) {
    const accumulator = new VariantAccumulator('treatment');
    const open = new Set<SatisfactionJudge>(SATISFACTION_JUDGES);
    for (let user = 1; user <= plan.users && open.size > 0; user++) {
      counts.feedback_positive = 0;
      counts.feedback_negative = 0;
      const answered = random() < plan.feedbackShare;
      if (answered) {
        const answers = random() < 0.7 ? 1 : 2 + Math.floor(random() * 3);
        const propensity = plan.trueSatisfaction - 0.25 + random() * 0.5;
        for (let a = 0; a < answers; a++) {
          if (random() < propensity) counts.feedback_positive++;
          else counts.feedback_negative++;
        }
      }
      accumulator.add(counts);
      if (!answered && user !== plan.minimumSampleSize) continue;
      for (const judge of [...open]) {
        if (verdictOf(accumulator, judge, plan) !== 'fail') continue;
        open.delete(judge);
        blocked[judge]++;
        if (user < plan.minimumSampleSize) blockedEarly[judge]++;
      }
    }
  }
  return { runs: plan.runs, blocked, blockedEarly };
}
