/**
 * `recsvc selftest`: simulated A/A experiments through the real assignment rule
 * (assignment.ts) and the real analysis (analysis.ts), so that a change that breaks the
 * statistics' guarantees shows up as a number out of bounds. Seeded: the same options give
 * the same report. Every figure is checked against a documented bound:
 *
 * - False-positive rate of each analysis method: the share of A/A experiments in which any
 *   treatment is called significant on the primary metric (click-through rate; with several
 *   treatments that is Holm's family-wise rate), reading the experiment at `looks` equally
 *   spaced moments and stopping at the first significant read. Its Wilson score interval at
 *   99.9% (BOUND_CONFIDENCE) must contain α for a method read as designed to be exact (fixed
 *   horizon, one planned read: too many false positives and too few are both faults), and must
 *   not lie wholly above α for a method designed to be valid at any number of reads
 *   (sequential: it is conservative, so only the upper side is a fault). Fixed horizon read
 *   more than once is held to the "at most α" bound too, which it cannot meet: that is the
 *   peeking problem the sequential method solves, and the honest way to see this command fail.
 * - Sample ratio mismatch false alarms: the share of those experiments whose final read has
 *   srm.mismatch (p < 0.001) although users are split by the real hash; the Wilson interval
 *   must not lie wholly above 0.001.
 * - Bucket uniformity: `ids` user ids hashed to the 100 variant buckets, and to the 100 traffic
 *   buckets, each a chi-square goodness-of-fit test against the uniform (df = 99) whose p-value
 *   must be at least 0.001.
 * With 99.9% intervals and p ≥ 0.001, a correct implementation fails a given seed with
 * probability of the order of 0.1% per check.
 */
import { createRandom } from '../../random.js';
import { analyzeExperiment, type AnalysisDesign, type AnalysisResult } from './analysis.js';
import { BUCKETS, bucketOf, createAssigner, trafficBucketOf } from '../assignment.js';
import { chiSquareSf, normalQuantile } from './distributions.js';
import { emptyCounts, type UserCounts } from '../metrics.js';
import { ANALYSIS_METHODS, type AnalysisMethod } from './sequential.js';
import { SRM_P_THRESHOLD } from './srm.js';
import { createAccumulators } from './variant-accumulator.js';

/** Two-sided confidence of the intervals the rates are judged by. */
export const BOUND_CONFIDENCE = 0.999;
/** The smallest chi-square p-value a uniform bucket count may have. */
export const UNIFORMITY_P_THRESHOLD = 0.001;

/** How a method's false-positive rate is judged: it should equal α, or only not exceed it. */
export type Calibration = 'exact' | 'at-most';

/** One way of reading an experiment that the self-test checks. */
export interface SelftestMethod {
  name: string;
  /** Equally spaced reads per experiment; the first significant one counts. */
  looks: number;
  calibration: Calibration;
  analyze(design: AnalysisDesign, accumulators: Parameters<typeof analyzeExperiment>[1]): AnalysisResult;
}

/**
 * The methods checked: every method the analysis offers (sequential.ts' ANALYSIS_METHODS), the
 * fixed horizon read `fixedLooks` times (1, as designed, unless asked to show peeking) and the
 * sequential method read `sequentialLooks` times (daily for 14 days by default).
 */
export function analysisMethods(fixedLooks = 1, sequentialLooks = 14): SelftestMethod[] {
  return ANALYSIS_METHODS.map((method: AnalysisMethod) => {
    const looks = method === 'fixed' ? fixedLooks : sequentialLooks;
    return {
      name: method,
      looks,
      calibration: method === 'fixed' && looks === 1 ? 'exact' : 'at-most',
      analyze: (design, accumulators) => analyzeExperiment(design, accumulators, { method }),
    };
  });
}

export interface SelftestOptions {
  seed: number;
  /** A/A experiments simulated. */
  experiments: number;
  /** Users per experiment, split by the real assignment rule. */
  usersPerExperiment: number;
  /** User ids hashed for the bucket uniformity tests. */
  ids: number;
  /** 1 − confidence level of the simulated experiments. */
  alpha: number;
  /** Variants and allocations, the control first. */
  variants: readonly { name: string; traffic_allocation: number }[];
  methods: readonly SelftestMethod[];
  /** The analysis' minimum_sample_size in the simulated experiments. */
  minimumSampleSize: number;
}

/** A share with its Wilson interval and the bound it was held to. */
export interface RateCheck {
  count: number;
  trials: number;
  rate: number;
  interval: [number, number];
  /** The rate the interval is compared with. */
  target: number;
  /** What the check requires of the interval. */
  bound: string;
  pass: boolean;
}

export interface MethodCheck extends RateCheck {
  method: string;
  looks: number;
  calibration: Calibration;
}

export interface UniformityCheck {
  name: string;
  ids: number;
  buckets: number;
  chi_square: number;
  df: number;
  p_value: number;
  min_count: number;
  max_count: number;
  bound: string;
  pass: boolean;
}

export interface SelftestReport {
  seed: number;
  experiments: number;
  users_per_experiment: number;
  alpha: number;
  variants: { name: string; traffic_allocation: number }[];
  false_positive_rates: MethodCheck[];
  srm_false_alarms: RateCheck;
  uniformity: UniformityCheck[];
  pass: boolean;
}

/**
 * Wilson score interval of k successes in n trials at two-sided confidence `confidence`:
 * (p̂ + z²/2n ± z·√(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n).
 */
export function wilsonInterval(k: number, n: number, confidence = BOUND_CONFIDENCE): [number, number] {
  if (n === 0) return [0, 1];
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const p = k / n;
  const z2 = z * z;
  const centre = p + z2 / (2 * n);
  const spread = z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  const denominator = 1 + z2 / n;
  return [Math.max(0, (centre - spread) / denominator), Math.min(1, (centre + spread) / denominator)];
}

/** Judges k of n against `target`: 'exact' needs the interval to contain it, 'at-most' its lower end not above it. */
export function rateCheck(k: number, n: number, target: number, calibration: Calibration): RateCheck {
  const interval = wilsonInterval(k, n);
  const percent = `${BOUND_CONFIDENCE * 100}%`;
  const pass = calibration === 'exact' ? interval[0] <= target && target <= interval[1] : interval[0] <= target;
  const bound = calibration === 'exact' ? `${percent} interval contains ${target}` : `${percent} interval's lower end ≤ ${target}`;
  return { count: k, trials: n, rate: n === 0 ? 0 : k / n, interval, target, bound, pass };
}

/**
 * A user of an A/A experiment: 0–24 impressions, a click propensity of 0.02 + U(0, 0.2) of
 * their own (users differ, variants do not), clicks drawn per impression.
 */
function simulateUser(random: () => number): UserCounts {
  const counts = emptyCounts();
  counts.impressions = Math.floor(random() * 25);
  const propensity = 0.02 + random() * 0.2;
  for (let i = 0; i < counts.impressions; i++) if (random() < propensity) counts.clicks++;
  counts.sessions = 1 + Math.floor(random() * 3);
  return counts;
}

interface SimulatedUser {
  variant: string;
  counts: UserCounts;
}

/** The experiment's users in arrival order, each assigned by the real rule (MD5 of `<user>_<experiment>`). */
function simulateExperiment(random: () => number, experimentId: string, options: SelftestOptions): SimulatedUser[] {
  const assign = createAssigner(experimentId, options.variants);
  return Array.from({ length: options.usersPerExperiment }, (_, i) => ({
    variant: assign(`user-${i}`).variant?.name as string,
    counts: simulateUser(random),
  }));
}

/** Whether reading at `looks` equally spaced moments finds a significant primary comparison. */
function anySignificantRead(method: SelftestMethod, design: AnalysisDesign, users: readonly SimulatedUser[], names: string[]): boolean {
  const accumulators = createAccumulators(names);
  let added = 0;
  for (let look = 1; look <= method.looks; look++) {
    const until = Math.round((look * users.length) / method.looks);
    for (; added < until; added++) {
      const user = users[added] as SimulatedUser;
      accumulators.get(user.variant)?.add(user.counts);
    }
    const result = method.analyze(design, accumulators);
    if (result.comparisons.some((c) => c.metric === result.primary_metric && c.significant)) return true;
  }
  return false;
}

function finalSrmMismatch(design: AnalysisDesign, users: readonly SimulatedUser[], names: string[]): boolean {
  const accumulators = createAccumulators(names);
  for (const user of users) accumulators.get(user.variant)?.add(user.counts);
  return analyzeExperiment(design, accumulators, { method: 'fixed' }).srm.mismatch;
}

/** Chi-square test of `ids` hashed ids (`id-<seed>-<i>`) against 100 equally likely buckets. */
export function bucketUniformity(name: string, ids: number, seed: number, bucket: (id: string) => number): UniformityCheck {
  const counts = new Array<number>(BUCKETS).fill(0);
  for (let i = 0; i < ids; i++) {
    const b = bucket(`id-${seed}-${i}`);
    counts[b] = (counts[b] as number) + 1;
  }
  const expected = ids / BUCKETS;
  const chiSquare = counts.reduce((sum, c) => sum + (c - expected) ** 2 / expected, 0);
  const pValue = chiSquareSf(chiSquare, BUCKETS - 1);
  return {
    name,
    ids,
    buckets: BUCKETS,
    chi_square: chiSquare,
    df: BUCKETS - 1,
    p_value: pValue,
    min_count: Math.min(...counts),
    max_count: Math.max(...counts),
    bound: `chi-square p ≥ ${UNIFORMITY_P_THRESHOLD}`,
    pass: pValue >= UNIFORMITY_P_THRESHOLD,
  };
}

/**
 * Why the options cannot give a meaningful test, or undefined: each variant must expect at
 * least 1.5 × minimum_sample_size users, or the analysis calls the experiments underpowered
 * and never significant (a false-positive rate of 0 that says nothing about the statistics).
 */
export function selftestOptionsIssue(options: SelftestOptions): string | undefined {
  const total = options.variants.reduce((sum, v) => sum + v.traffic_allocation, 0);
  const smallest = Math.min(...options.variants.map((v) => v.traffic_allocation)) / total;
  const expected = options.usersPerExperiment * smallest;
  if (expected < 1.5 * options.minimumSampleSize)
    return (
      `the smallest variant expects ${Math.floor(expected)} users per experiment: give at least ` +
      `${Math.ceil((1.5 * options.minimumSampleSize) / smallest)} users or a smaller minimum sample size`
    );
  return undefined;
}

/** Progress of a run: experiments simulated so far, out of the total. */
export interface SelftestProgress {
  done: number;
  total: number;
}

/** Runs the simulations and the uniformity tests; `pass` is false when any figure is out of bounds. */
export function runSelftest(options: SelftestOptions): SelftestReport {
  const steps = selftestSteps(options);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * runSelftest one experiment at a time: yields progress after each simulated experiment and
 * returns the report, so a caller can report progress and let other work (a Ctrl-C) run between.
 */
export function* selftestSteps(options: SelftestOptions): Generator<SelftestProgress, SelftestReport, void> {
  const issue = selftestOptionsIssue(options);
  if (issue !== undefined) throw new RangeError(issue);
  const random = createRandom(options.seed);
  const names = options.variants.map((v) => v.name);
  const design: AnalysisDesign = {
    variants: options.variants.map((v, i) => ({ ...v, is_control: i === 0 })),
    confidence_level: 1 - options.alpha,
    minimum_sample_size: options.minimumSampleSize,
  };
  const falsePositives = options.methods.map(() => 0);
  let srmAlarms = 0;
  for (let e = 0; e < options.experiments; e++) {
    const users = simulateExperiment(random, `selftest-${options.seed}-${e}`, options);
    options.methods.forEach((method, m) => {
      if (anySignificantRead(method, design, users, names)) falsePositives[m] = (falsePositives[m] as number) + 1;
    });
    if (finalSrmMismatch(design, users, names)) srmAlarms++;
    yield { done: e + 1, total: options.experiments };
  }
  const rates: MethodCheck[] = options.methods.map((method, m) => ({
    method: method.name,
    looks: method.looks,
    calibration: method.calibration,
    ...rateCheck(falsePositives[m] as number, options.experiments, options.alpha, method.calibration),
  }));
  const srm = rateCheck(srmAlarms, options.experiments, SRM_P_THRESHOLD, 'at-most');
  const checks = [
    bucketUniformity('variant buckets: md5("<user>_<experiment>")', options.ids, options.seed, (id) => bucketOf(id, options.seed)),
    bucketUniformity('traffic buckets: md5("<user>_<experiment>_traffic")', options.ids, options.seed, (id) =>
      trafficBucketOf(id, options.seed),
    ),
  ];
  return {
    seed: options.seed,
    experiments: options.experiments,
    users_per_experiment: options.usersPerExperiment,
    alpha: options.alpha,
    variants: options.variants.map((v) => ({ name: v.name, traffic_allocation: v.traffic_allocation })),
    false_positive_rates: rates,
    srm_false_alarms: srm,
    uniformity: checks,
    pass: rates.every((r) => r.pass) && srm.pass && checks.every((c) => c.pass),
  };
}
