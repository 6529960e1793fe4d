/**
 * Issue 30, the gates on proportions: intervals honest when every answer agrees, the metric's own
 * minimum of units, and a decisive failure before the users minimum (a pass still waits).
 */
import { describe, expect, it } from 'vitest';
import { gateInputsFromData } from '../../../../src/experiments/gates/gate-inputs.js';
import { evaluateGate, type GateVariantInput } from '../../../../src/experiments/gates/gates.js';
import { emptyCounts, MINIMUM_METRIC_UNITS, type UserCounts } from '../../../../src/experiments/metrics.js';
import { VariantAccumulator } from '../../../../src/experiments/stats/variant-accumulator.js';

const SEQUENTIAL = { method: 'sequential', confidenceLevel: 0.95, minimumSampleSize: 1000 } as const;
const FIXED = { ...SEQUENTIAL, method: 'fixed' } as const;

function variantOf(users: Partial<UserCounts>[], settings: typeof SEQUENTIAL | typeof FIXED = SEQUENTIAL): GateVariantInput {
  const accumulator = new VariantAccumulator('treatment');
  for (const user of users) accumulator.add({ ...emptyCounts(), ...user });
  return gateInputsFromData(['treatment'], new Map([['treatment', accumulator]]), [], settings)[0] as GateVariantInput;
}

const repeat = <T>(n: number, value: T): T[] => Array.from({ length: n }, () => value);

describe('the satisfaction gate (min_user_satisfaction 0.6)', () => {
  it('passes 1,000 users whose 40 answers hold a single negative one (the delta method gave [1, 1] before one and failed at it)', () => {
    const users = [...repeat(39, { feedback_positive: 1 }), { feedback_negative: 1 }, ...repeat(960, {})];
    for (const settings of [SEQUENTIAL, FIXED]) {
      const result = evaluateGate(variantOf(users, settings), 'min_user_satisfaction', 0.6, 1000);
      expect(result).toMatchObject({ verdict: 'pass', value: 0.975, units: 40 });
    }
  });

  it('gives 30 agreeing answers a proper interval, not [1, 1]: fixed, Wilson at z = 1.96 over 30 units (upper 1, lower 30/(30 + z²))', () => {
    const variant = variantOf([...repeat(30, { feedback_positive: 1 }), ...repeat(970, {})], FIXED);
    const interval = variant.intervals?.user_satisfaction;
    const z2 = 1.959963984540054 ** 2;
    expect(interval?.high).toBeCloseTo(1, 12);
    expect(interval?.low).toBeCloseTo(30 / (30 + z2), 12);
  });

  it('counts a user who answers 3 times alike as one unit when all answers agree (the worst-case design effect)', () => {
    const variant = variantOf([...repeat(10, { feedback_positive: 3 }), ...repeat(990, {})], FIXED);
    const z2 = 1.959963984540054 ** 2;
    expect(variant.intervals?.user_satisfaction?.low).toBeCloseTo(10 / (10 + z2), 12);
  });

  it(`is inconclusive (too few units) below ${MINIMUM_METRIC_UNITS} answers however many users`, () => {
    const result = evaluateGate(
      variantOf([...repeat(29, { feedback_positive: 1 }), ...repeat(5000, {})]),
      'min_user_satisfaction',
      0.6,
      1000,
    );
    expect(result).toMatchObject({ verdict: 'inconclusive', reason: 'too few units', units: 29 });
  });
});

describe('a decisive failure before the users minimum', () => {
  const clicks = (n: number, clicked: number) => [
    ...repeat(clicked, { impressions: 10, clicks: 1 }),
    ...repeat(n - clicked, { impressions: 10 }),
  ];

  it('fails 400 of a 1,000-user minimum with CTR 0.01 against a 0.05 gate, on the always-valid interval, marked early', () => {
    const result = evaluateGate(variantOf(clicks(400, 40)), 'min_click_through_rate', 0.05, 1000);
    expect(result).toMatchObject({ verdict: 'fail', early: true });
    expect(result.ci_high as number).toBeLessThan(0.05);
  });

  it('also with the fixed method: the early check always uses the sequential interval', () => {
    const variant = variantOf(clicks(400, 40), FIXED);
    expect(evaluateGate(variant, 'min_click_through_rate', 0.05, 1000)).toMatchObject({ verdict: 'fail', early: true });
    expect(variant.early_intervals?.click_through_rate?.high).not.toBe(variant.intervals?.click_through_rate?.high);
  });

  it('never passes early: a clearly good variant waits for the minimum (underpowered)', () => {
    const result = evaluateGate(variantOf(clicks(400, 400)), 'min_click_through_rate', 0.05, 1000);
    expect(result).toMatchObject({ verdict: 'inconclusive', reason: 'underpowered' });
  });

  it('not on the point rule, and not below the metric’s own minimum of units', () => {
    expect(evaluateGate(variantOf(clicks(400, 40)), 'min_click_through_rate', 0.05, 1000, 'point')).toMatchObject({
      verdict: 'inconclusive',
      reason: 'underpowered',
    });
    const few = variantOf(repeat(2, { impressions: 10 }));
    expect(evaluateGate(few, 'min_click_through_rate', 0.05, 1000)).toMatchObject({ verdict: 'inconclusive', reason: 'underpowered' });
  });
});

interface ProportionReference {
  cases: {
    name: string;
    x: number[];
    y: number[];
    value: number;
    design_effect: number;
    intervals: { settings: typeof SEQUENTIAL | typeof FIXED; interval: [number, number] }[];
  }[];
}

describe('against the independent Python reference (test/fixtures/stats/generate_proportion_gates.py)', async () => {
  const { readFile } = await import('node:fs/promises');
  const reference = JSON.parse(
    await readFile(new URL('../../../fixtures/stats/reference-proportion-gates.json', import.meta.url), 'utf8'),
  ) as ProportionReference;
  const metricOf = (name: string) => (name.startsWith('click') ? 'click_through_rate' : 'user_satisfaction');
  const usersOf = (c: ProportionReference['cases'][number]) =>
    c.x.map((x, i) =>
      metricOf(c.name) === 'click_through_rate'
        ? { clicks: x, impressions: c.y[i] as number }
        : { feedback_positive: x, feedback_negative: (c.y[i] as number) - x },
    );
  for (const c of reference.cases) {
    it.each(c.intervals.map((entry) => [`${entry.settings.method} ${entry.settings.confidenceLevel}`, entry] as const))(
      `${c.name}: %s, the score interval over N/D units to 1e-9`,
      (_label, entry) => {
        const variant = variantOf(usersOf(c), entry.settings);
        const interval = variant.intervals?.[metricOf(c.name)];
        expect(variant[metricOf(c.name)]).toBeCloseTo(c.value, 12);
        expect(interval?.low).toBeCloseTo(entry.interval[0], 9);
        expect(interval?.high).toBeCloseTo(entry.interval[1], 9);
      },
    );
  }
});
