import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { MetricName } from '../../../../src/experiments/metrics.js';
import {
  planDuration,
  planInputIssues,
  planSampleSize,
  powerAtSampleSize,
  requiredSampleSize,
  sampleSizeWarning,
  type PlanInput,
} from '../../../../src/experiments/stats/power.js';

interface ReferenceCase {
  name: string;
  metric: MetricName;
  baseline: number;
  effect: PlanInput['effect'];
  alpha?: number;
  power?: number;
  sd?: number;
  units_per_user?: number;
  variants: PlanInput['variants'];
  power_at_users?: number;
  expected: {
    total_units: number;
    users: Record<string, number>;
    comparison_alpha: number;
    target: number;
    power_at_users?: number;
  };
}

// Computed by statsmodels' NormalIndPower and scipy (power_reference.py; provenance in the file).
const reference = JSON.parse(readFileSync(new URL('../../../fixtures/stats/power-reference.json', import.meta.url), 'utf8')) as {
  cases: ReferenceCase[];
};

const inputOf = (c: ReferenceCase): PlanInput => ({
  metric: c.metric,
  baseline: c.baseline,
  effect: c.effect,
  alpha: c.alpha,
  power: c.power,
  sd: c.sd,
  unitsPerUser: c.units_per_user,
  variants: c.variants,
});

describe('planSampleSize against statsmodels / scipy', () => {
  it.each(reference.cases)('$name', (c) => {
    const plan = planSampleSize(inputOf(c));
    expect(plan.total_units / c.expected.total_units - 1).toBeCloseTo(0, 9);
    expect(Object.fromEntries(plan.variants.map((v) => [v.name, v.users]))).toEqual(c.expected.users);
    expect(plan.comparison_alpha).toBeCloseTo(c.expected.comparison_alpha, 15);
    expect(plan.target).toBeCloseTo(c.expected.target, 12);
    expect(plan.minimum_sample_size).toBe(Math.min(...Object.values(c.expected.users)));
    if (c.power_at_users !== undefined) {
      expect(powerAtSampleSize(inputOf(c), c.power_at_users)).toBeCloseTo(c.expected.power_at_users as number, 10);
    }
  });
});

describe('issue 13 figures', () => {
  const ctr: PlanInput = {
    metric: 'click_through_rate',
    baseline: 0.05,
    effect: { kind: 'relative', value: 0.1 },
    unitsPerUser: 8.33,
    variants: [
      { name: 'control', traffic_allocation: 50, is_control: true },
      { name: 'treatment', traffic_allocation: 50, is_control: false },
    ],
  };

  it('needs about 3,750 users per variant for 80% power on a +10% CTR lift (CTR 5%, 8.33 impressions per user)', () => {
    expect(requiredSampleSize(ctr)).toBe(3750);
  });

  it('gives the fixed 1,000-user minimum about 30% power, and the plan at least 80%', () => {
    expect(powerAtSampleSize(ctr, 1000)).toBeGreaterThan(0.29);
    expect(powerAtSampleSize(ctr, 1000)).toBeLessThan(0.32);
    expect(powerAtSampleSize(ctr, requiredSampleSize(ctr))).toBeGreaterThanOrEqual(0.8);
    expect(powerAtSampleSize(ctr, requiredSampleSize(ctr) - 1)).toBeLessThan(0.8);
  });

  it('users needed scale with the denominator: twice the impressions per user, half the users', () => {
    const twice = planSampleSize({ ...ctr, unitsPerUser: 16.66 });
    expect(twice.total_units).toBeCloseTo(planSampleSize(ctr).total_units, 6);
    expect(twice.minimum_sample_size).toBe(Math.ceil(3750 / 2 - 0.5));
  });
});

describe('planInputIssues', () => {
  const base: PlanInput = {
    metric: 'click_through_rate',
    baseline: 0.1,
    effect: { kind: 'relative', value: 0.1 },
    variants: [
      { name: 'a', traffic_allocation: 50, is_control: true },
      { name: 'b', traffic_allocation: 50, is_control: false },
    ],
  };

  it('accepts a plain plan', () => {
    expect(planInputIssues(base)).toEqual([]);
  });

  it.each<[string, Partial<PlanInput>, string]>([
    ['a rate above 1', { baseline: 1.2 }, 'baseline'],
    ['a treatment rate above 1', { baseline: 0.95, effect: { kind: 'relative', value: 0.1 } }, 'effect'],
    ['a zero effect', { effect: { kind: 'absolute', value: 0 } }, 'effect'],
    ['power of 1', { power: 1 }, 'power'],
    ['alpha of 0', { alpha: 0 }, 'alpha'],
    ['a non-rate metric without sd', { metric: 'session_duration', baseline: 300 }, 'sd'],
    ['no control', { variants: [{ name: 'a', traffic_allocation: 100, is_control: false }] }, 'variants'],
  ])('refuses %s', (_label, change, field) => {
    const issues = planInputIssues({ ...base, ...change });
    expect(
      issues.some((issue) => issue.startsWith(`${field}:`)),
      issues.join('; '),
    ).toBe(true);
    expect(() => planSampleSize({ ...base, ...change })).toThrow(RangeError);
  });
});

describe('planDuration', () => {
  it('divides users needed by the users enrolled per day, rounding up to whole days', () => {
    expect(planDuration(7500, 1000)).toEqual({ daily_users: 1000, traffic_percentage: 100, enrolled_per_day: 1000, days: 8 });
    expect(planDuration(7500, 1000, 50).days).toBe(15);
    expect(planDuration(7000, 1000).days).toBe(7);
  });
});

describe('sampleSizeWarning (for experiment create)', () => {
  const experiment = {
    variants: [
      { name: 'control', traffic_allocation: 50, is_control: true },
      { name: 'treatment', traffic_allocation: 50, is_control: false },
    ],
    confidence_level: 0.95,
    minimum_sample_size: 1000,
    primary_metric: 'click_through_rate',
    analysis_method: 'fixed',
  };
  const assumptions = { baseline: 0.05, effect: { kind: 'relative', value: 0.1 }, unitsPerUser: 8.33 } as const;

  it('warns when minimum_sample_size is below the plan, with the power it gives', () => {
    expect(sampleSizeWarning(experiment, assumptions)).toBe(
      'minimum_sample_size 1000 is below the 3750 users per variant needed for 80% power to detect 10% on click_through_rate ' +
        "from 0.05: at 1000 the power is 30.4% (fixed method, binomial variance: the metric's units independent trials, " +
        'which under-plans when users differ; see recsvc experiment plan)',
    );
  });

  it('plans for the sequential method when the experiment is read with it (the default), and names the variance used', () => {
    const { analysis_method: _fixed, ...sequential } = experiment;
    const warning = sampleSizeWarning(sequential, {
      ...assumptions,
      sd: 0.4,
      variance: 'delta-method variance of 4000 users in pilot.jsonl',
    });
    const fixedPlan = requiredSampleSize({
      ...assumptions,
      sd: 0.4,
      metric: 'click_through_rate',
      alpha: 0.05,
      variants: experiment.variants,
    });
    const sequentialPlan = requiredSampleSize({
      ...assumptions,
      sd: 0.4,
      metric: 'click_through_rate',
      alpha: 0.05,
      variants: experiment.variants,
      method: 'sequential',
    });
    expect(sequentialPlan / fixedPlan).toBeGreaterThan(1.8);
    expect(warning).toContain(`below the ${sequentialPlan} users per variant`);
    expect(warning).toContain('(sequential method, delta-method variance of 4000 users in pilot.jsonl; see recsvc experiment plan)');
  });

  it('is silent at or above the plan, and when the assumptions cannot be planned', () => {
    expect(sampleSizeWarning({ ...experiment, minimum_sample_size: 3750 }, assumptions)).toBeUndefined();
    expect(sampleSizeWarning(experiment, { ...assumptions, baseline: 2 })).toBeUndefined();
  });

  it("plans the experiment's own primary metric and confidence level", () => {
    const satisfaction = { ...experiment, primary_metric: 'user_satisfaction', confidence_level: 0.99 };
    const warning = sampleSizeWarning(satisfaction, { baseline: 0.6, effect: { kind: 'absolute', value: 0.05 } });
    const required = requiredSampleSize({
      metric: 'user_satisfaction',
      baseline: 0.6,
      effect: { kind: 'absolute', value: 0.05 },
      alpha: 0.01,
      variants: experiment.variants,
    });
    expect(warning).toContain(`below the ${required} users per variant`);
    expect(warning).toContain('on user_satisfaction');
  });
});
