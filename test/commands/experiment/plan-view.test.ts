/**
 * The terminal view of `experiment plan` (plan-view.ts) on plans computed by the real planner:
 * nouns agree with the numbers shown ("1 impression per user", never "1 impressions").
 */
import { describe, expect, it } from 'vitest';
import { renderPlan, type PlanReport } from '../../../commands/experiment/plan-view.js';
import { planDuration, planSampleSize, type PlanInput } from '../../../src/experiments/stats/power.js';

const variants = [
  { name: 'control', traffic_allocation: 50, is_control: true },
  { name: 'treatment', traffic_allocation: 50, is_control: false },
];

function report(input: PlanInput, dailyUsers?: number): PlanReport {
  const plan = planSampleSize(input);
  return {
    ...plan,
    power_at_minimum_sample_size: { minimum_sample_size: 1, power: 0.05 },
    duration: dailyUsers === undefined ? null : planDuration(plan.total_users, dailyUsers),
    observed: null,
    assumption: 'binomial variance (test)',
  };
}

describe('experiment plan view', () => {
  it('says "1 impression per user", and "per impression" for the metric and its deviation', () => {
    const text = renderPlan(
      report({ metric: 'click_through_rate', baseline: 0.05, effect: { kind: 'relative', value: 0.1 }, variants, unitsPerUser: 1 }),
    );
    expect(text).toContain('(at 1 impression per user)');
    expect(text).toContain('Plan for click_through_rate per impression:');
    expect(text).toContain('standard deviation per impression:');
    expect(text).not.toMatch(/\b1 impressions\b|per impressions/);
  });

  it('keeps plurals for other counts, and says "1 day" when the traffic covers the plan in a day', () => {
    const input: PlanInput = { metric: 'bounce_rate', baseline: 0.4, effect: { kind: 'relative', value: 0.5 }, variants, unitsPerUser: 2 };
    const text = renderPlan(report(input, 1e9));
    expect(text).toContain('(at 2 sessions per user)');
    expect(text).toMatch(/minimum_sample_size: [\d,]+ users per variant/);
    expect(text).toContain('duration: 1 day at');
  });
});
