import { describe, expect, it } from 'vitest';
import { renderAnalysis } from '../../../../commands/support/analysis-view.js';
import { analyzeExperiment, type Comparison } from '../../../../src/experiments/stats/analysis.js';
import { CUPED_COVARIATE } from '../../../../src/experiments/stats/cuped.js';
import { parseJsonlExport, toJsonlLines, type UserRecord } from '../../../../src/experiments/io/export-format.js';
import { InputFileError } from '../../../../src/experiments/io/input-file-error.js';
import { emptyCounts, type MetricName } from '../../../../src/experiments/metrics.js';
import { createRandom } from '../../../../src/random.js';
import { createAccumulators } from '../../../../src/experiments/stats/variant-accumulator.js';
import { linesOf } from '../lines.js';
import { countsOf, readFixture, type ReferenceDataset } from './reference-data.js';

interface CupedReference extends Omit<ReferenceDataset, 'expected'> {
  expected: Record<MetricName, { theta: number; comparisons: Record<string, Record<string, number>> }>;
}

const reference = readFixture<CupedReference>('reference-cuped.json');
const COVARIATE_COLUMN = reference.columns.indexOf('pre_engagement');
const users: UserRecord[] = reference.users.map((row) => ({
  user_id: row[0],
  variant: row[1],
  ...countsOf(row, reference.columns),
  pre_engagement: row[COVARIATE_COLUMN] as number,
}));

function accumulateUsers(list: readonly UserRecord[], withCovariate = true) {
  const accumulators = createAccumulators(reference.design.variants.map((v) => v.name));
  for (const user of list) accumulators.get(user.variant)?.add(user, withCovariate ? user.pre_engagement : undefined);
  return accumulators;
}

function close(actual: number | null | undefined, expected: number): void {
  expect(actual).not.toBeNull();
  expect(Math.abs((actual as number) - expected)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)));
}

describe('CUPED', () => {
  it('agrees with the statsmodels OLS reference (generate_cuped.py) to 1e-9 on every metric and treatment', () => {
    const result = analyzeExperiment(reference.design, accumulateUsers(users));
    let checked = 0;
    for (const [metric, expected] of Object.entries(reference.expected)) {
      for (const [variant, values] of Object.entries(expected.comparisons)) {
        const cuped = result.comparisons.find((c) => c.metric === metric && c.variant === variant)?.cuped;
        expect(cuped?.covariate).toBe(CUPED_COVARIATE);
        close(cuped?.theta, expected.theta);
        for (const key of ['difference', 'standard_error', 'ci_low', 'ci_high', 'p_value', 'variance_reduction'] as const) {
          close(cuped?.[key], values[key] as number);
        }
        checked++;
      }
    }
    expect(checked).toBe(12);
  });

  it('leaves the unadjusted comparison as it was, and adds nothing without covariates', () => {
    const withCovariate = analyzeExperiment(reference.design, accumulateUsers(users));
    const without = analyzeExperiment(reference.design, accumulateUsers(users, false));
    expect(without.comparisons.every((c) => c.cuped === undefined)).toBe(true);
    const stripped = withCovariate.comparisons.map(({ cuped: _cuped, ...rest }) => rest);
    expect(stripped).toEqual(without.comparisons);
  });

  it('adds nothing when one user lacks the covariate', () => {
    const accumulators = accumulateUsers(users.slice(1));
    const first = users[0] as UserRecord;
    accumulators.get(first.variant)?.add(first);
    expect(analyzeExperiment(reference.design, accumulators).comparisons.some((c) => c.cuped !== undefined)).toBe(false);
  });

  it('gives the same covariate moments when shards are merged', () => {
    const whole = accumulateUsers(users);
    const a = accumulateUsers(users.filter((_, i) => i % 3 === 0));
    const b = accumulateUsers(users.filter((_, i) => i % 3 !== 0));
    for (const [name, accumulator] of a) accumulator.merge(b.get(name) as NonNullable<ReturnType<typeof b.get>>);
    for (const [name, accumulator] of whole) {
      const merged = a.get(name)?.covariateMoments('click_through_rate');
      const direct = accumulator.covariateMoments('click_through_rate');
      for (const key of ['n', 'meanC', 'm2c', 'cxc', 'cyc'] as const) close(merged?.[key], direct?.[key] as number);
    }
  });

  it('the export carries pre_engagement, and its offline analysis equals the online one', async () => {
    const lines = [...toJsonlLines({ id: 3, ...reference.design }, users, [])];
    expect(JSON.parse(lines[1] as string)).toMatchObject({ type: 'user', pre_engagement: users[0]?.pre_engagement });
    const parsed = await parseJsonlExport(linesOf(lines), 'cuped.jsonl');
    const offline = analyzeExperiment(parsed.experiment, parsed.accumulators);
    expect(offline).toEqual(analyzeExperiment(reference.design, accumulateUsers(users)));
    expect(offline.comparisons.every((c) => c.cuped !== undefined)).toBe(true);
  });

  it('analyze shows a CUPED line under each adjusted comparison, and none without covariates', () => {
    const context = { title: 't', allocations: {} };
    const text = renderAnalysis(analyzeExperiment(reference.design, accumulateUsers(users)), context);
    const ctr = reference.expected.click_through_rate.comparisons.semantic as Record<string, number>;
    const line = text.split('\n').find((l) => l.includes('CUPED on pre_engagement (semantic)')) as string;
    expect(line).toContain(`variance -${(100 * (ctr.variance_reduction as number)).toFixed(1)}%`);
    expect(text.split('\n').filter((l) => l.includes('CUPED on pre_engagement'))).toHaveLength(12);
    expect(renderAnalysis(analyzeExperiment(reference.design, accumulateUsers(users, false)), context)).not.toContain('CUPED');
  });

  it.each([
    [-1, 'pre_engagement must not be negative'],
    ['3', 'pre_engagement must be a non-negative number'],
  ])('rejects pre_engagement %j with file:line:column', async (value, message) => {
    const user = JSON.stringify({ type: 'user', user_id: 'u', variant: 'control', ...emptyCounts(), pre_engagement: value });
    const experiment = JSON.stringify({ type: 'experiment', ...reference.design });
    const error = await parseJsonlExport(linesOf([experiment, user]), 'bad.jsonl').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InputFileError);
    const column = user.indexOf('"pre_engagement"') + 1;
    expect((error as Error).message).toContain(`bad.jsonl:2:${column}: ${message}`);
  });
});

/** Seeded A/B data: a user's activity drives clicks and impressions; the covariate is correlated with it or independent. */
function simulatedReduction(seed: number, correlated: boolean): number[] {
  const random = createRandom(seed);
  const poisson = (mean: number): number => {
    const u = random();
    let k = 0;
    let p = Math.exp(-mean);
    let cumulative = p;
    while (u > cumulative && k < 1000) {
      k++;
      p *= mean / k;
      cumulative += p;
    }
    return k;
  };
  const reductions: number[] = [];
  for (let run = 0; run < 40; run++) {
    const accumulators = createAccumulators(['control', 'treatment']);
    for (let i = 0; i < 600; i++) {
      const activity = 0.2 + 2 * random();
      const impressions = poisson(3 + 10 * activity);
      let clicks = 0;
      for (let k = 0; k < impressions; k++) if (random() < 0.01 + 0.08 * activity) clicks++;
      const covariate = poisson(5 * (correlated ? activity : 0.2 + 2 * random()));
      accumulators.get(i % 2 === 0 ? 'control' : 'treatment')?.add({ ...emptyCounts(), impressions, clicks }, covariate);
    }
    const design = {
      variants: [
        { name: 'control', traffic_allocation: 50, is_control: true },
        { name: 'treatment', traffic_allocation: 50, is_control: false },
      ],
      confidence_level: 0.95,
      minimum_sample_size: 100,
    };
    const comparison = analyzeExperiment(design, accumulators).comparisons.find((c) => c.metric === 'click_through_rate') as Comparison;
    reductions.push(comparison.cuped?.variance_reduction as number);
  }
  return reductions;
}

describe('CUPED variance reduction, seeded simulation', () => {
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

  it('removes variance when the covariate is correlated with the metric', () => {
    const reductions = simulatedReduction(20261123, true);
    expect(mean(reductions)).toBeGreaterThan(0.05);
    expect(reductions.every((r) => r > 0)).toBe(true);
  });

  it('removes about nothing when the covariate is independent', () => {
    const reductions = simulatedReduction(20261124, false);
    expect(Math.abs(mean(reductions))).toBeLessThan(0.02);
  });
});
