import { describe, expect, it } from 'vitest';
import { gateInputsFromData } from '../../../../src/experiments/gates/gate-inputs.js';
import { evaluateGates, GATE_SHORT_NAMES, resolveGateName, resolveThresholds } from '../../../../src/experiments/gates/gates.js';
import { createAccumulators } from '../../../../src/experiments/stats/variant-accumulator.js';
import { emptyCounts } from '../../../../src/experiments/metrics.js';

const good = { name: 'control', users: 2000, response_time_p95: 150, click_through_rate: 0.08, error_rate: 0.002, user_satisfaction: 0.7 };

describe('evaluateGates, point rule (the spec: the value against the threshold)', () => {
  it('passes a variant within every default threshold, boundaries included', () => {
    const atLimits = { ...good, name: 'edge', response_time_p95: 200, click_through_rate: 0.05, error_rate: 0.01, user_satisfaction: 0.6 };
    const result = evaluateGates({ variants: [good, atLimits], minimumSampleSize: 1000, rule: 'point' });
    expect(result.verdict).toBe('pass');
    expect(result.results).toHaveLength(8);
  });

  it.each([
    ['p95 above 200 ms', { response_time_p95: 201 }, 'max_response_time_p95'],
    ['CTR below 0.05', { click_through_rate: 0.049 }, 'min_click_through_rate'],
    ['error rate above 1%', { error_rate: 0.011 }, 'max_error_rate'],
    ['satisfaction below 0.6', { user_satisfaction: 0.59 }, 'min_user_satisfaction'],
  ])('fails on %s', (_name, change, gate) => {
    const result = evaluateGates({ variants: [good, { ...good, name: 't', ...change }], minimumSampleSize: 1000, rule: 'point' });
    expect(result.verdict).toBe('fail');
    expect(result.results.filter((r) => r.verdict === 'fail').map((r) => [r.variant, r.gate])).toEqual([['t', gate]]);
  });

  it('is inconclusive with too few users or no data, and says why', () => {
    const result = evaluateGates({
      variants: [
        { ...good, users: 999 },
        { ...good, name: 't', error_rate: null },
      ],
      minimumSampleSize: 1000,
      rule: 'point',
    });
    expect(result.verdict).toBe('inconclusive');
    expect(result.results.find((r) => r.variant === 'control')).toMatchObject({ verdict: 'inconclusive', reason: 'underpowered' });
    expect(result.results.find((r) => r.variant === 't' && r.gate === 'max_error_rate')).toMatchObject({
      verdict: 'inconclusive',
      reason: 'no data',
      value: null,
    });
  });

  it('lets a failure or an SRM win over inconclusive', () => {
    const variants = [
      { ...good, user_satisfaction: undefined },
      { ...good, name: 't', click_through_rate: 0.01 },
    ];
    expect(evaluateGates({ variants, minimumSampleSize: 1000, rule: 'point' }).verdict).toBe('fail');
    const srm = evaluateGates({ variants: [good], minimumSampleSize: 1000, rule: 'point', srm: { mismatch: true } });
    expect(srm).toMatchObject({ verdict: 'fail', srm_mismatch: true });
  });

  it('applies overridden thresholds and --only gates', () => {
    const strict = evaluateGates({ variants: [good], minimumSampleSize: 1000, rule: 'point', thresholds: { max_response_time_p95: 100 } });
    expect(strict.verdict).toBe('fail');
    expect(strict.results.find((r) => r.gate === 'max_response_time_p95')).toMatchObject({ threshold: 100, comparator: '<=', value: 150 });
    const only = evaluateGates({
      variants: [good],
      minimumSampleSize: 1000,
      rule: 'point',
      thresholds: { max_response_time_p95: 100 },
      only: ['min_click_through_rate'],
    });
    expect(only.verdict).toBe('pass');
    expect(only.results.map((r) => r.gate)).toEqual(['min_click_through_rate']);
    expect(resolveThresholds({ min_user_satisfaction: undefined }).min_user_satisfaction).toBe(0.6);
  });

  it('maps the CLI short names to gates', () => {
    expect(Object.keys(GATE_SHORT_NAMES)).toEqual(['p95', 'ctr', 'error_rate', 'satisfaction']);
    expect(resolveGateName('ctr')).toBe('min_click_through_rate');
    expect(resolveGateName('max_error_rate')).toBe('max_error_rate');
    expect(resolveGateName('toString')).toBeUndefined();
  });
});

describe('gateInputsFromData', () => {
  it('derives rates from the accumulators and performance records', () => {
    const accumulators = createAccumulators(['control', 'treatment']);
    const zero = emptyCounts();
    accumulators.get('control')?.add({ ...zero, impressions: 10, clicks: 1, feedback_positive: 3, feedback_negative: 1 });
    accumulators.get('control')?.add({ ...zero, impressions: 30, clicks: 5 });
    const perf = [{ variant: 'control', requests: 400, errors: 2, latency_ms_p95: 87.5, cache_hits: 1, cache_lookups: 2 }];
    const [control, treatment] = gateInputsFromData(['control', 'treatment'], accumulators, perf);
    expect(control).toMatchObject({
      name: 'control',
      users: 2,
      click_through_rate: 0.15,
      user_satisfaction: 0.75,
      response_time_p95: 87.5,
      error_rate: 0.005,
    });
    expect(treatment).toMatchObject({
      name: 'treatment',
      users: 0,
      click_through_rate: null,
      user_satisfaction: null,
      response_time_p95: null,
      error_rate: null,
    });
    // Intervals: CTR's by the delta method over the 2 users; satisfaction has 1 user with feedback
    // but 2 users (the other adds 0 to both sums); the error rate's over 400 requests; no histogram, no p95 interval.
    expect(control?.intervals?.click_through_rate?.low).toBeLessThan(0.15);
    expect(control?.intervals?.click_through_rate?.high).toBeGreaterThan(0.15);
    expect(control?.intervals?.error_rate?.low).toBeLessThan(0.005);
    expect(control?.intervals?.error_rate?.high).toBeGreaterThan(0.005);
    expect(control?.intervals?.response_time_p95).toBeNull();
    expect(treatment?.intervals).toEqual({ click_through_rate: null, user_satisfaction: null, error_rate: null, response_time_p95: null });
  });
});
