/**
 * The gates agent on simulated traffic: one treatment variant, users arriving steadily over the
 * planned duration, its CTR gate (minimum 0.05) judged every minute (the agent) and once a day
 * (an operator or a nightly CI `gates check`), blocked at the first `fail` and for good. Shared
 * by the light test in the normal suite (gates-simulation.test.ts) and the heavy one behind
 * `npm run test:stats` (test/stats/gates.stats.ts).
 */
import { ratioEstimate } from '../../../../src/experiments/stats/delta-method.js';
import { ratioInterval, type GateIntervalSettings } from '../../../../src/experiments/gates/gate-intervals.js';
import { gateInputsFromData } from '../../../../src/experiments/gates/gate-inputs.js';
import { evaluateGate, type GateRule, type GateVariantInput } from '../../../../src/experiments/gates/gates.js';
import { emptyCounts } from '../../../../src/experiments/metrics.js';
import type { AnalysisMethod } from '../../../../src/experiments/stats/sequential.js';
import { VariantAccumulator } from '../../../../src/experiments/stats/variant-accumulator.js';
import { createRandom } from '../../../../src/random.js';

export interface GateSimulationPlan {
  runs: number;
  /** The variant's true click-through rate (the gate's minimum is 0.05). */
  trueCtr: number;
  /** Planned duration. */
  days: number;
  /** New users of the variant per day, arriving evenly over the day. */
  usersPerDay: number;
  /** Impressions per user: uniform on 1..2·mean − 1. */
  meanImpressions: number;
  minimumSampleSize: number;
  confidenceLevel: number;
  seed: number;
  /** The judges to run (default: all of SIMULATED_JUDGES). */
  judges?: readonly SimulatedJudge[];
}

/**
 * How a gate is judged in the simulation: the point rule, or the bounds rule with fixed or
 * sequential intervals waiting for the minimum (as before issue 30), or `bounds-early`: the
 * service's own path (gateInputsFromData, sequential), where a decisive failure on the
 * always-valid interval fails before the minimum.
 */
export const SIMULATED_JUDGES = ['point', 'bounds-fixed', 'bounds-sequential', 'bounds-early'] as const;
export type SimulatedJudge = (typeof SIMULATED_JUDGES)[number];
export const CHECK_SCHEDULES = ['minute', 'daily'] as const;
export type CheckSchedule = (typeof CHECK_SCHEDULES)[number];

export interface GateSimulationOutcome {
  runs: number;
  /** Runs in which the variant was blocked within the planned duration, per judge and schedule. */
  blocked: Record<SimulatedJudge, Record<CheckSchedule, number>>;
  /** The median day (fractional, from the start) on which blocked runs were blocked, per judge, checked every minute; null if none. */
  medianBlockDay: Record<SimulatedJudge, number | null>;
}

const THRESHOLD = 0.05;
const MINUTES_PER_DAY = 1440;

/** One user: impressions uniform on 1..2m − 1; a click propensity spread ±50% around the true CTR (users differ). */
function addUser(accumulator: VariantAccumulator, plan: GateSimulationPlan, random: () => number): void {
  const counts = emptyCounts();
  counts.impressions = 1 + Math.floor(random() * (2 * plan.meanImpressions - 1));
  const propensity = plan.trueCtr * (0.5 + random());
  for (let i = 0; i < counts.impressions; i++) if (random() < propensity) counts.clicks++;
  accumulator.add(counts);
}

/** The CTR gate's verdict for the variant's data so far, by one judge (the project's gate code). */
function verdictOf(accumulator: VariantAccumulator, judge: SimulatedJudge, plan: GateSimulationPlan): string {
  if (judge === 'bounds-early') {
    const settings = { method: 'sequential', confidenceLevel: plan.confidenceLevel, minimumSampleSize: plan.minimumSampleSize } as const;
    const [variant] = gateInputsFromData(['treatment'], new Map([['treatment', accumulator]]), [], settings);
    return evaluateGate(variant as GateVariantInput, 'min_click_through_rate', THRESHOLD, plan.minimumSampleSize, 'bounds').verdict;
  }
  const estimate = ratioEstimate(accumulator.moments('click_through_rate'));
  const [rule, method] = judge.split('-') as [GateRule, AnalysisMethod | undefined];
  const settings: GateIntervalSettings = {
    method: method ?? 'fixed',
    confidenceLevel: plan.confidenceLevel,
    minimumSampleSize: plan.minimumSampleSize,
  };
  const interval = rule === 'bounds' ? ratioInterval(estimate.value, estimate.variance, estimate.n, settings) : null;
  const variant = {
    name: 'treatment',
    users: accumulator.users,
    click_through_rate: estimate.value,
    intervals: { click_through_rate: interval },
  };
  return evaluateGate(variant, 'min_click_through_rate', THRESHOLD, plan.minimumSampleSize, rule).verdict;
}

/**
 * Runs the plan with the project's seeded RNG (src/random.ts). A minute without new users
 * changes nothing, so only minutes with arrivals are judged (the verdict is the same).
 */
export function simulateGateChecks(plan: GateSimulationPlan): GateSimulationOutcome {
  const random = createRandom(plan.seed);
  const blocked = Object.fromEntries(SIMULATED_JUDGES.map((j) => [j, { minute: 0, daily: 0 }])) as GateSimulationOutcome['blocked'];
  const blockDays = Object.fromEntries(SIMULATED_JUDGES.map((j) => [j, [] as number[]])) as Record<SimulatedJudge, number[]>;
  const minutes = plan.days * MINUTES_PER_DAY;
  for (let run = 0; run < plan.runs; run++) {
    const accumulator = new VariantAccumulator('treatment');
    const done = new Set<string>();
    let added = 0;
    for (let minute = 1; minute <= minutes; minute++) {
      const due = Math.floor((minute * plan.usersPerDay) / MINUTES_PER_DAY);
      const arrived = due > added;
      for (; added < due; added++) addUser(accumulator, plan, random);
      const endOfDay = minute % MINUTES_PER_DAY === 0;
      if (!arrived && !endOfDay) continue;
      for (const judge of plan.judges ?? SIMULATED_JUDGES) {
        const schedules: CheckSchedule[] = endOfDay ? ['minute', 'daily'] : ['minute'];
        const open = schedules.filter((s) => !done.has(`${judge}/${s}`));
        if (open.length === 0 || verdictOf(accumulator, judge, plan) !== 'fail') continue;
        for (const schedule of open) {
          done.add(`${judge}/${schedule}`);
          blocked[judge][schedule]++;
          if (schedule === 'minute') blockDays[judge].push(minute / MINUTES_PER_DAY);
        }
      }
    }
  }
  const median = (days: number[]) => (days.length === 0 ? null : (days.sort((a, b) => a - b)[Math.floor(days.length / 2)] as number));
  const medianBlockDay = Object.fromEntries(SIMULATED_JUDGES.map((j) => [j, median(blockDays[j])])) as Record<
    SimulatedJudge,
    number | null
  >;
  return { runs: plan.runs, blocked, medianBlockDay };
}
