import { describe, expect, it } from 'vitest';
import { analyzeExperiment } from '../../../../src/experiments/stats/analysis.js';
import { bucketOf } from '../../../../src/experiments/assignment.js';
import {
  analysisMethods,
  bucketUniformity,
  rateCheck,
  runSelftest,
  selftestOptionsIssue,
  wilsonInterval,
  type SelftestMethod,
  type SelftestOptions,
} from '../../../../src/experiments/stats/selftest.js';

const AB = [
  { name: 'control', traffic_allocation: 50 },
  { name: 'treatment', traffic_allocation: 50 },
];

const options = (change: Partial<SelftestOptions> = {}): SelftestOptions => ({
  seed: 11,
  experiments: 300,
  usersPerExperiment: 300,
  ids: 20_000,
  alpha: 0.05,
  variants: AB,
  methods: analysisMethods(1, 14),
  minimumSampleSize: 100,
  ...change,
});

describe('wilsonInterval', () => {
  // statsmodels.stats.proportion.proportion_confint(k, n, alpha=0.001, method='wilson'), statsmodels 0.13.5.
  it.each([
    [50, 1000, 0.03175433440022907, 0.07788609279005118],
    [0, 1000, 0, 0.010711585766978044],
    [1, 1000, 7.844198621950304e-5, 0.012611720609224587],
    [29, 300, 0.053802317970812905, 0.16763095777948628],
    [500, 1000, 0.4482516044524614, 0.5517483955475386],
  ])('%i of %i at 99.9%% matches statsmodels', (k, n, low, high) => {
    const [lo, hi] = wilsonInterval(k, n);
    expect(lo).toBeCloseTo(low, 13);
    expect(hi).toBeCloseTo(high, 13);
  });
});

describe('rateCheck', () => {
  it('exact: the interval must contain the target, from either side', () => {
    expect(rateCheck(50, 1000, 0.05, 'exact').pass).toBe(true);
    expect(rateCheck(100, 1000, 0.05, 'exact').pass).toBe(false);
    expect(rateCheck(5, 1000, 0.05, 'exact').pass).toBe(false);
  });

  it('at-most: only an interval wholly above the target fails', () => {
    expect(rateCheck(5, 1000, 0.05, 'at-most').pass).toBe(true);
    expect(rateCheck(100, 1000, 0.05, 'at-most').pass).toBe(false);
  });
});

describe('bucketUniformity', () => {
  it('passes the real rule and fails a rule that never uses half of the buckets', () => {
    expect(bucketUniformity('real', 20_000, 3, (id) => bucketOf(id, 3)).pass).toBe(true);
    const broken = bucketUniformity('broken', 20_000, 3, (id) => bucketOf(id, 3) % 50);
    expect(broken.pass).toBe(false);
    expect(broken.p_value).toBeLessThan(1e-100);
  });
});

describe('runSelftest', () => {
  it('refuses experiments too small to leave the underpowered zone', () => {
    const tooSmall = options({ usersPerExperiment: 250 });
    expect(selftestOptionsIssue(tooSmall)).toMatch(/expects 125 users per experiment: give at least 300 users/);
    expect(() => runSelftest(tooSmall)).toThrow(RangeError);
  });

  it('keeps the real analysis within bounds, read once (fixed) and 14 times (sequential)', () => {
    const report = runSelftest(options());
    expect(report.pass).toBe(true);
    expect(report.false_positive_rates.map((r) => [r.method, r.looks, r.calibration])).toEqual([
      ['fixed', 1, 'exact'],
      ['sequential', 14, 'at-most'],
    ]);
    expect(report.uniformity.every((u) => u.pass)).toBe(true);
    expect(report.srm_false_alarms.trials).toBe(300);
  });

  it('is reproducible from its seed', () => {
    const small = options({ experiments: 40, ids: 2000 });
    expect(runSelftest(small)).toEqual(runSelftest(small));
    expect(runSelftest({ ...small, seed: 12 })).not.toEqual(runSelftest(small));
  });

  it('fails the fixed horizon read daily for 14 days (peeking) and not the sequential method', () => {
    const report = runSelftest(options({ experiments: 600, minimumSampleSize: 20, methods: analysisMethods(14, 14) }));
    const [fixed, sequential] = report.false_positive_rates;
    expect(fixed).toMatchObject({ method: 'fixed', looks: 14, calibration: 'at-most', pass: false });
    expect(fixed?.interval[0]).toBeGreaterThan(0.05);
    expect(sequential?.pass).toBe(true);
    expect(report.pass).toBe(false);
  });

  it('catches an analysis that tests at 10% while claiming 5%', () => {
    const loose: SelftestMethod = {
      name: 'loose',
      looks: 1,
      calibration: 'exact',
      analyze: (design, accumulators) => analyzeExperiment({ ...design, confidence_level: 0.9 }, accumulators, { method: 'fixed' }),
    };
    const report = runSelftest(options({ experiments: 1000, methods: [loose] }));
    expect(report.false_positive_rates[0]?.pass).toBe(false);
    expect(report.pass).toBe(false);
  });

  it('catches an analysis that never finds anything (too few false positives for an exact method)', () => {
    const never: SelftestMethod = {
      name: 'never',
      looks: 1,
      calibration: 'exact',
      analyze: (design, accumulators) => analyzeExperiment({ ...design, confidence_level: 0.9999 }, accumulators, { method: 'fixed' }),
    };
    expect(runSelftest(options({ methods: [never] })).pass).toBe(false);
  });

  it("holds Holm's family-wise rate at alpha with two treatments", () => {
    const report = runSelftest(
      options({
        usersPerExperiment: 600,
        variants: [
          { name: 'control', traffic_allocation: 34 },
          { name: 'a', traffic_allocation: 33 },
          { name: 'b', traffic_allocation: 33 },
        ],
      }),
    );
    expect(report.false_positive_rates.map((r) => r.pass)).toEqual([true, true]);
    expect(report.pass).toBe(true);
  });
});
