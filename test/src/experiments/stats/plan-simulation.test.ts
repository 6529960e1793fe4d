/**
 * `experiment plan` against simulated experiments of the planned size (plan-simulation.ts; heavy:
 * test/stats/plan.stats.ts), and its sequential critical value against the scipy reference
 * (generate_plan_sequential.py). Users differ a lot in how often they click: the binomial
 * assumption under-plans; the delta-method variance of a pilot plans close to the promised 80%
 * (78% over 1,500 runs: the treatment's spread is extrapolated from the control's).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { planSampleSize } from '../../../../src/experiments/stats/power.js';
import { planFromPilot, simulatePower } from './plan-simulation.js';

const RUNS = 300;

describe('the plan for +20% CTR when users differ, 300 simulated experiments of the planned size each', () => {
  const delta = planFromPilot(5000, 'fixed', 'delta', 20261160).plan;
  const binomial = planFromPilot(5000, 'fixed', 'binomial', 20261160).plan;
  const sequential = planFromPilot(5000, 'sequential', 'delta', 20261160).plan;

  it('from the pilot’s delta-method variance: at least 72% power read once at the end (planned 80%)', () => {
    const power = simulatePower(delta.minimum_sample_size, 'fixed', RUNS, 20261161);
    console.log(`delta plan ${delta.minimum_sample_size} users per variant: power ${power}`);
    expect(power).toBeGreaterThanOrEqual(0.72);
  });

  it('with the binomial assumption (units independent): fewer users and clearly less power', () => {
    expect(binomial.minimum_sample_size).toBeLessThan(delta.minimum_sample_size * 0.75);
    const power = simulatePower(binomial.minimum_sample_size, 'fixed', RUNS, 20261162);
    console.log(`binomial plan ${binomial.minimum_sample_size} users per variant: power ${power}`);
    expect(power).toBeLessThanOrEqual(0.7);
  });

  it('for the sequential method: a larger plan that keeps its power; the fixed plan read sequentially loses it', () => {
    expect(sequential.minimum_sample_size / delta.minimum_sample_size).toBeGreaterThan(1.8);
    expect(sequential.sequential_tuning?.target_sample_size).toBe(2 * sequential.minimum_sample_size);
    const kept = simulatePower(sequential.minimum_sample_size, 'sequential', RUNS, 20261163);
    const lost = simulatePower(delta.minimum_sample_size, 'sequential', RUNS, 20261164);
    console.log(`sequential plan ${sequential.minimum_sample_size}: power ${kept}; fixed plan read sequentially: ${lost}`);
    expect(kept).toBeGreaterThanOrEqual(0.72);
    expect(lost).toBeLessThanOrEqual(0.5);
  });
});

describe('the sequential critical value against scipy (test/fixtures/stats/generate_plan_sequential.py)', () => {
  const reference = JSON.parse(
    readFileSync(new URL('../../../fixtures/stats/reference-plan-sequential.json', import.meta.url), 'utf8'),
  ) as {
    cases: { name: string; alpha: number; allocations: number[]; critical_value: number }[];
  };
  it.each(reference.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const plan = planSampleSize({
      metric: 'click_through_rate',
      baseline: 0.05,
      effect: { kind: 'relative', value: 0.1 },
      alpha: c.alpha,
      variants: c.allocations.map((a, i) => ({ name: `v${i}`, traffic_allocation: a, is_control: i === 0 })),
      method: 'sequential',
    });
    expect(plan.critical_value).toBeCloseTo(c.critical_value, 9);
  });
});
