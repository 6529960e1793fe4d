/**
 * A/A interleaving experiments read every day and stopped at the first significant read (the
 * way operators use `status` / `analyze`), with the click model of click-simulation.ts: each
 * day new users are enrolled and every enrolled user comes back with probability RETURN_RATE
 * and is served one more interleaved list, so users' credited clicks, and with them their
 * preferences, keep changing between reads. Shared by the light test in the normal suite
 * (peeking-simulation.test.ts) and the heavy one behind `npm run test:stats`.
 */
import { analyzeInterleaving } from '../../../../src/experiments/interleaving/analysis.js';
import { mulberry32, seededCoin } from '../../../../src/experiments/interleaving/team-draft.js';
import type { AnalysisMethod } from '../../../../src/experiments/stats/sequential.js';
import { interleavedUser } from './click-simulation.js';

export interface InterleavingPeekingPlan {
  experiments: number;
  days: number;
  /** Users enrolled per day. */
  usersPerDay: number;
  /** Users with a preference needed before a verdict. */
  minimumSampleSize: number;
  alpha: number;
  seed: number;
}

/** Experiments ever significant at a daily read, per method; and significant at the last read only. */
export interface InterleavingPeekingOutcome {
  experiments: number;
  stoppedEarly: Record<AnalysisMethod, number>;
  finalReadOnly: Record<AnalysisMethod, number>;
}

/** Chance that an enrolled user is served another list on a later day. */
export const RETURN_RATE = 0.5;

const METHODS: AnalysisMethod[] = ['fixed', 'sequential'];

/** Runs the plan with seeded generators: the same plan always gives the same counts. */
export function simulateInterleavingPeeking(plan: InterleavingPeekingPlan): InterleavingPeekingOutcome {
  const random = mulberry32(plan.seed);
  const stoppedEarly = { fixed: 0, sequential: 0 };
  const finalReadOnly = { fixed: 0, sequential: 0 };
  const options = { confidenceLevel: 1 - plan.alpha, minimumSampleSize: plan.minimumSampleSize };
  for (let e = 0; e < plan.experiments; e++) {
    const credits: { a: number; b: number }[] = [];
    const stopped = new Set<AnalysisMethod>();
    for (let day = 1; day <= plan.days; day++) {
      for (let u = 0; u < plan.usersPerDay; u++) credits.push({ a: 0, b: 0 });
      credits.forEach((credit, u) => {
        // A new user (enrolled today) is always served; the others come back at RETURN_RATE.
        if (u < credits.length - plan.usersPerDay && random() >= RETURN_RATE) return;
        const clicks = interleavedUser(random, seededCoin(`peek:${plan.seed}:${e}:${u}:${day}`), { sameList: true, liftB: 1 });
        credit.a += clicks.a;
        credit.b += clicks.b;
      });
      for (const method of METHODS) {
        const significant = analyzeInterleaving(credits, { ...options, method }).significant;
        if (significant) stopped.add(method);
        if (significant && day === plan.days) finalReadOnly[method]++;
      }
    }
    for (const method of stopped) stoppedEarly[method]++;
  }
  return { experiments: plan.experiments, stoppedEarly, finalReadOnly };
}
