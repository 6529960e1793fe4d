/**
 * `recsvc experiment plan` as a child process: figures from flags checked against the
 * statsmodels/scipy reference (power-reference.json), and traffic observed by a real
 * `recsvc serve` with a seeded experiment (--from-experiment).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planSampleSize } from '../../src/experiments/stats/power.js';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import type { ServerProcess } from '../helpers/server-process.js';
import { startSeededExperiment } from './support/seed-experiment.js';
import { jsonlText, makeUsers, writeData } from './support/make-data.js';

interface ReferenceCase {
  name: string;
  expected: { total_units: number; users: Record<string, number>; power_at_users?: number };
}
const reference = JSON.parse(readFileSync(`${REPO_ROOT}test/fixtures/stats/power-reference.json`, 'utf8')) as { cases: ReferenceCase[] };
const caseNamed = (prefix: string): ReferenceCase => reference.cases.find((c) => c.name.startsWith(prefix)) as ReferenceCase;

interface PlanJson {
  variants: { name: string; users: number; units: number }[];
  total_units: number;
  total_users: number;
  minimum_sample_size: number;
  comparison_alpha: number;
  correction: string;
  power_at_minimum_sample_size: { minimum_sample_size: number; power: number };
  duration: { days: number; enrolled_per_day: number } | null;
  observed: {
    experiment_id: number;
    users: number;
    active_days: number;
    traffic_percentage: number;
    daily_users: number;
    baseline: number;
    units_per_user: number;
    sd: number;
  } | null;
  baseline: number;
  units_per_user: number;
  control_sd: number;
  treatment_sd: number;
}

const usersOf = (plan: PlanJson) => Object.fromEntries(plan.variants.map((v) => [v.name, v.users]));

describe('recsvc experiment plan (flags)', () => {
  it('gives the reference plan for +10% on a 5% CTR at 8.33 impressions per user, and 30% power at 1,000', async () => {
    const result = await runCli([
      'experiment',
      'plan',
      '--method',
      'fixed',
      '--binomial',
      '--baseline',
      '0.05',
      '--mde',
      '10%',
      '--per-user',
      '8.33',
      '--daily-users',
      '1500',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const plan = JSON.parse(result.stdout) as PlanJson;
    const ref = caseNamed('issue 13 with impressions');
    expect(usersOf(plan)).toEqual(ref.expected.users);
    expect(plan.total_units / ref.expected.total_units - 1).toBeCloseTo(0, 9);
    expect(plan.power_at_minimum_sample_size.minimum_sample_size).toBe(1000);
    expect(plan.power_at_minimum_sample_size.power).toBeCloseTo(ref.expected.power_at_users as number, 10);
    expect(plan.duration).toMatchObject({ days: 5, enrolled_per_day: 1500 });
  });

  it('splits alpha over two treatments and plans unequal allocations like the reference', async () => {
    const result = await runCli([
      'experiment',
      'plan',
      '--method',
      'fixed',
      '--binomial',
      '--baseline',
      '0.05',
      '--mde',
      '10',
      '--per-user',
      '12',
      '--allocations',
      'control=40,a=30,b=30',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const plan = JSON.parse(result.stdout) as PlanJson;
    expect(usersOf(plan)).toEqual(caseNamed('three variants').expected.users);
    expect(plan).toMatchObject({ correction: 'bonferroni', comparison_alpha: 0.025, duration: null });
  });

  it('prints a table with users per variant, the minimum_sample_size, the power at 1,000 and the duration', async () => {
    const result = await runCli([
      'experiment',
      'plan',
      '--method',
      'fixed',
      '--binomial',
      '--baseline',
      '0.05',
      '--mde',
      '10%',
      '--per-user',
      '8.33',
      '--daily-users',
      '2000',
      '--traffic',
      '50',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^variant\s+share\s+impressions\s+users$/m);
    expect(result.stdout).toMatch(/^control\s+50\.0%\s+31,231\s+3,750$/m);
    expect(result.stdout).toMatch(/^total\s+62,462\s+7,500$/m);
    expect(result.stdout).toContain('minimum_sample_size: 3,750 users per variant');
    expect(result.stdout).toContain('power at minimum_sample_size 1,000: 30.4%');
    expect(result.stdout).toContain('duration: 8 days at 2,000 new users/day × 50% traffic');
  });

  it.each([
    [['--mde', '10%'], /--baseline is required/],
    [['--baseline', '0.05'], /exactly one of --mde/],
    [['--baseline', '0.05', '--mde', '5%', '--mde-absolute', '0.01'], /exactly one of --mde/],
    [['--baseline', '1.5', '--mde', '5%'], /--baseline: a rate must be between 0 and 1/],
    [['-m', 'session_duration', '--baseline', '300', '--mde-absolute', '10'], /--sd: session_duration is not a rate/],
    [['--baseline', '0.05', '--mde', '5%', '--allocations', 'a=50,b=50', '--control', 'c'], /--control: "c"/],
    [['--baseline', '0.05', '--mde', '5%', '--power', '1.2'], /--power/],
  ])('refuses %j with a usage error (exit 2)', async (args, message) => {
    const result = await runCli(['experiment', 'plan', '--binomial', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });
});

describe('recsvc experiment plan --pilot (issue 30: the delta-method variance by default)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'recsvc-plan-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const users = makeUsers([
    { name: 'control', allocation: 50, users: 1200, ctr: 0.08, satisfaction: 0.7 },
    { name: 'treatment', allocation: 50, users: 1200, ctr: 0.08, satisfaction: 0.7 },
  ]);
  const experiment = {
    id: 3,
    confidence_level: 0.95,
    minimum_sample_size: 100,
    variants: [
      { name: 'control', traffic_allocation: 50, is_control: true },
      { name: 'treatment', traffic_allocation: 50, is_control: false },
    ],
  };
  const pilot = writeData(join(dir, 'pilot.jsonl'), jsonlText(experiment, users));

  /** σ² = Σ(x − R·y)² / ((n − 1)·ȳ) per variant (the delta method per unit), pooled by n − 1: by hand. */
  function pooledSd(): number {
    let weighted = 0;
    let weights = 0;
    for (const name of ['control', 'treatment']) {
      const mine = users.filter((u) => u.variant === name).map((u) => [u.counts[1] as number, u.counts[0] as number] as const);
      const r = mine.reduce((a, [x]) => a + x, 0) / mine.reduce((a, [, y]) => a + y, 0);
      const yBar = mine.reduce((a, [, y]) => a + y, 0) / mine.length;
      const ss = mine.reduce((a, [x, y]) => a + (x - r * y) ** 2, 0);
      weighted += ss / yBar;
      weights += mine.length - 1;
    }
    return Math.sqrt(weighted / weights);
  }

  it('measures σ, baseline and units per user in the pilot, plans the sequential read, and says both', async () => {
    const json = await runCli(['experiment', 'plan', '--pilot', pilot, '--mde', '10%', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const plan = JSON.parse(json.stdout) as PlanJson & { method: string; assumption: string; critical_value: number };
    expect(plan.control_sd).toBeCloseTo(pooledSd(), 12);
    expect(plan.method).toBe('sequential');
    expect(plan.critical_value).toBeCloseTo(3.0352089903762525, 9); // generate_plan_sequential.py, 50/50 at 0.05
    expect(plan.assumption).toBe(`delta-method variance of 2400 users in ${pilot} (users who differ included)`);
    const text = await runCli(['experiment', 'plan', '--pilot', pilot, '--mde', '10%']);
    expect(text.stdout).toContain(`Assumption: delta-method variance of 2400 users in ${pilot}`);
    expect(text.stdout).toMatch(/Method: sequential \(read at any time\)/);
  });

  it('refuses to plan a rate with no data unless the binomial assumption is asked for, and then says it', async () => {
    const refused = await runCli(['experiment', 'plan', '--baseline', '0.05', '--mde', '10%']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/no data to measure how much users differ on click_through_rate: give --pilot FILE/);
    const asked = await runCli(['experiment', 'plan', '--baseline', '0.05', '--mde', '10%', '--binomial']);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).toContain(
      "Assumption: binomial variance: the metric's units independent trials, which under-plans when users differ",
    );
  });
});

describe('recsvc experiment plan --from-experiment (a real server)', () => {
  let server: ServerProcess;
  let id: number;
  let assigned: Map<string, string>;

  beforeAll(async () => {
    ({ server, id, assigned } = await startSeededExperiment(300));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('reads the baseline, impressions per user and daily users the service observed', async () => {
    const result = await runCli(['experiment', 'plan', '--from-experiment', String(id), '--mde', '10%', '--json'], { env: server.env });
    expect(result.code, result.stderr).toBe(0);
    const plan = JSON.parse(result.stdout) as PlanJson;
    const observed = plan.observed as NonNullable<PlanJson['observed']>;
    // The seed gives user i 1 + (i mod 9) impressions; the control's share of them per control user:
    let impressions = 0;
    let controls = 0;
    [...assigned].forEach(([, variant], i) => {
      if (variant !== 'control') return;
      controls++;
      impressions += 1 + (i % 9);
    });
    expect(observed).toMatchObject({ experiment_id: id, users: 300, traffic_percentage: 100 });
    expect(observed.units_per_user).toBeCloseTo(impressions / controls, 12);
    expect(observed.daily_users).toBeCloseTo(300 / observed.active_days, 6);
    const metrics = (await (
      await fetch(`${server.url}/api/v1/analytics/experiments/${id}/metrics`, { headers: { authorization: `Bearer ${server.token}` } })
    ).json()) as { data: { variants: { is_control: boolean; engagement: { click_through_rate: number } }[] } };
    const controlCtr = metrics.data.variants.find((v) => v.is_control)?.engagement.click_through_rate as number;
    expect(observed.baseline).toBe(controlCtr);
    // The per-impression sd implied by the analysis' standard error: SE² = sd²·(1/Uc + 1/Ut).
    const analysis = (await (
      await fetch(`${server.url}/api/v1/analytics/experiments/${id}/analysis?metric=click_through_rate`, {
        headers: { authorization: `Bearer ${server.token}` },
      })
    ).json()) as { data: { comparisons: { metric: string; standard_error: number }[] } };
    const se = analysis.data.comparisons.find((c) => c.metric === 'click_through_rate')?.standard_error as number;
    const treatmentImpressions = [...assigned].reduce((sum, [, variant], i) => sum + (variant === 'control' ? 0 : 1 + (i % 9)), 0);
    expect(observed.sd).toBeCloseTo(se / Math.sqrt(1 / impressions + 1 / treatmentImpressions), 12);
    expect(plan.control_sd).toBe(observed.sd);
    // A rate's spread moves with its level: the treatment's σ is the control's scaled as the binomial one.
    const target = controlCtr * 1.1;
    expect(plan.treatment_sd).toBeCloseTo(observed.sd * Math.sqrt((target * (1 - target)) / (controlCtr * (1 - controlCtr))), 12);
    const expected = planSampleSize({
      metric: 'click_through_rate',
      baseline: controlCtr,
      effect: { kind: 'relative', value: 0.1 },
      unitsPerUser: impressions / controls,
      sd: observed.sd,
      method: 'sequential',
      variants: [
        { name: 'control', traffic_allocation: 50, is_control: true },
        { name: 'treatment', traffic_allocation: 50, is_control: false },
      ],
    });
    expect(plan.total_users).toBe(expected.total_users);
    expect(plan.duration?.days).toBe(Math.ceil(plan.total_users / observed.daily_users));
  });

  it('experiment create warns (and still creates) when --min-sample-size is below the plan, and is silent when it is not', async () => {
    const flags = ['--name', 'underpowered', '--variant', 'control:50', '--variant', 'b:50', '--control', 'control', '--no-interactive'];
    const plan = ['--baseline', '0.05', '--mde', '10%', '--per-user', '8.33', '--binomial', '--method', 'fixed'];
    const low = await runCli(['experiment', 'create', ...flags, '--min-sample-size', '1000', ...plan], { env: server.env });
    expect(low.code, low.stderr).toBe(0);
    expect(Number(low.stdout.trim())).toBeGreaterThan(0);
    expect(low.stderr).toMatch(/minimum_sample_size 1000 is below the 3750 users per variant needed .* the power is 30\.4%/);
    const enough = await runCli(['experiment', 'create', ...flags, '--min-sample-size', '4000', ...plan], { env: server.env });
    expect(enough.code, enough.stderr).toBe(0);
    expect(enough.stderr).not.toMatch(/is below/);
    const unplanned = await runCli(['experiment', 'create', ...flags, '--min-sample-size', '1000', '--baseline', '0.05', '--mde', '10%'], {
      env: server.env,
    });
    expect(unplanned.code, unplanned.stderr).toBe(0);
    expect(unplanned.stderr).toMatch(/minimum_sample_size not checked against a plan: no data to measure how much users differ/);
  });

  it('lets flags win over what was observed', async () => {
    const result = await runCli(
      [
        'experiment',
        'plan',
        '--from-experiment',
        String(id),
        '--mde',
        '10%',
        '--baseline',
        '0.2',
        '--per-user',
        '3',
        '--daily-users',
        '100',
        '--json',
      ],
      { env: server.env },
    );
    expect(result.code, result.stderr).toBe(0);
    const plan = JSON.parse(result.stdout) as PlanJson;
    expect(plan).toMatchObject({ baseline: 0.2, units_per_user: 3 });
    expect(plan.duration?.days).toBe(Math.ceil(plan.total_users / 100));
  });

  it('fails with exit 3 for an experiment the server does not have', async () => {
    const result = await runCli(['experiment', 'plan', '--from-experiment', '9999', '--mde', '10%'], { env: server.env });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/9999/);
  });
});
