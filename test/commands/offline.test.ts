/** `experiment analyze --file` and `gates check --file` as child processes on generated files. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { csvText, jsonlText, makeUsers, writeData, type SyntheticVariant } from './support/make-data.js';
import { runCli } from '../helpers/cli.js';
import { parseJunit } from './support/junit.js';
import { formatValue } from '../../commands/support/format.js';

const dir = mkdtempSync(join(tmpdir(), 'recsvc-offline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const VARIANTS: SyntheticVariant[] = [
  { name: 'control', allocation: 50, users: 1200, ctr: 0.08, satisfaction: 0.7 },
  { name: 'treatment', allocation: 50, users: 1200, ctr: 0.11, satisfaction: 0.72 },
];
const experiment = {
  id: 12,
  name: 'ranking v2',
  confidence_level: 0.95,
  minimum_sample_size: 1000,
  variants: [
    { name: 'control', traffic_allocation: 50, is_control: true },
    { name: 'treatment', traffic_allocation: 50, is_control: false },
  ],
};
const performance = [
  { variant: 'control', requests: 5000, errors: 10, latency_ms_p95: 120, cache_hits: 10, cache_lookups: 20 },
  { variant: 'treatment', requests: 5000, errors: 20, latency_ms_p95: 150, cache_hits: 10, cache_lookups: 20 },
];
const users = makeUsers(VARIANTS);
const csv = writeData(join(dir, 'users.csv'), csvText(users));
const csvGz = writeData(join(dir, 'users.csv.gz'), csvText(users));
const jsonl = writeData(join(dir, 'export.jsonl'), jsonlText(experiment, users, performance));
const jsonlGz = writeData(join(dir, 'export.jsonl.gz'), jsonlText(experiment, users, performance));
const experimentFile = join(dir, 'experiment.json');
writeFileSync(experimentFile, JSON.stringify(experiment));
const CSV_FLAGS = ['--allocations', 'control=50,treatment=50', '--control', 'control'];

/** Independent expectation: ratio of sums computed here from the generated users. */
function ratio(variant: string, numerator: number, denominators: number[]): number {
  let x = 0;
  let y = 0;
  for (const u of users.filter((user) => user.variant === variant)) {
    x += u.counts[numerator] as number;
    for (const d of denominators) y += u.counts[d] as number;
  }
  return x / y;
}

describe('experiment analyze --file', () => {
  it('analyses a CSV with --allocations/--control: sample sizes, ratio-of-sums metrics, all comparisons', async () => {
    const result = await runCli(['experiment', 'analyze', '--file', csv, ...CSV_FLAGS, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const analysis = JSON.parse(result.stdout);
    expect(analysis.sample_sizes).toEqual({ control: 1200, treatment: 1200 });
    expect(analysis.metrics.control.click_through_rate).toBeCloseTo(ratio('control', 1, [0]), 12);
    expect(analysis.metrics.treatment.user_satisfaction).toBeCloseTo(ratio('treatment', 6, [6, 7]), 12);
    expect(analysis.comparisons).toHaveLength(6);
    for (const c of analysis.comparisons) {
      for (const key of [
        'metric',
        'variant',
        'control',
        'control_value',
        'variant_value',
        'difference',
        'ci_low',
        'ci_high',
        'effect_size',
        'p_value',
        'adjusted_p_value',
        'significant',
      ])
        expect(c).toHaveProperty(key);
    }
    expect(analysis.srm).toMatchObject({ mismatch: false });
    expect(analysis.statistical_significance.treatment_vs_control.significance).toBe('statistically_significant');
    expect(analysis.confidence_intervals.click_through_rate).toHaveLength(2);
  });

  it('gives identical numbers from the CSV, the gzipped CSV, --experiment-file, and the JSON Lines export (plain and .gz)', async () => {
    const outputs = await Promise.all([
      runCli(['experiment', 'analyze', '--file', csv, ...CSV_FLAGS, '--json']),
      runCli(['experiment', 'analyze', '--file', csvGz, ...CSV_FLAGS, '--json']),
      runCli(['experiment', 'analyze', '--file', csv, '--experiment-file', experimentFile, '--json']),
      runCli(['experiment', 'analyze', '--file', jsonl, '--json']),
      runCli(['experiment', 'analyze', '--file', jsonlGz, '--json']),
    ]);
    for (const output of outputs) expect(output.code, output.stderr).toBe(0);
    const first = JSON.parse(outputs[0]?.stdout);
    for (const output of outputs.slice(1)) expect(JSON.parse(output.stdout)).toEqual(first);
  });

  it('--metric picks the primary metric of the spec shapes', async () => {
    const result = await runCli(['experiment', 'analyze', '--file', jsonl, '--metric', 'user_satisfaction', '--json']);
    const analysis = JSON.parse(result.stdout);
    expect(analysis.primary_metric).toBe('user_satisfaction');
    expect(analysis.statistical_significance.treatment_vs_control.metric).toBe('user_satisfaction');
  });

  it('prints a table per metric with lift, interval, adjusted p and verdict', async () => {
    const result = await runCli(['experiment', 'analyze', '--file', jsonl]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Experiment 12 "ranking v2"');
    for (const metric of [
      'click_through_rate (primary)',
      'interaction_rate',
      'session_duration',
      'bounce_rate',
      'recommendations_consumed',
      'user_satisfaction',
    ])
      expect(result.stdout).toContain(metric);
    expect(result.stdout).toMatch(/lift.*95% CI \(diff\).*adj\. p.*verdict/);
    expect(result.stdout).toMatch(/treatment.*better ↑/);
    expect(result.stdout).not.toContain('\u001b[');
    expect(result.stdout).toContain('Sample ratio: OK');
  });

  it('warns loudly about a sample ratio mismatch', async () => {
    const skewed = writeData(
      join(dir, 'skewed.csv'),
      csvText(
        makeUsers([
          { ...VARIANTS[0]!, users: 1400 },
          { ...VARIANTS[1]!, users: 1000 },
        ]),
      ),
    );
    const result = await runCli(['experiment', 'analyze', '--file', skewed, ...CSV_FLAGS]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('SAMPLE RATIO MISMATCH');
    expect(result.stderr).toMatch(/warning: sample ratio mismatch/);
  });

  it.each([
    [
      'a bad count',
      (text: string) => text.replace(/\ncontrol-3,control,(\d+),/, '\ncontrol-3,control,x$1,'),
      /users-bad\.csv:5:19: impressions must be a non-negative whole number/,
    ],
    [
      'a missing field',
      (text: string) => text.replace(/\ncontrol-3,control,[^\n]*/, '\ncontrol-3,control,1,2'),
      /users-bad\.csv:5:1: expected 10 comma-separated fields, found 4/,
    ],
    [
      'an unknown variant',
      (text: string) => text.replace('\ncontrol-3,control,', '\ncontrol-3,contrl,'),
      /users-bad\.csv:5:11: unknown variant "contrl"/,
    ],
    ['a wrong header', (text: string) => text.replace('user_id,', 'uid,'), /users-bad\.csv:1:1: expected the header/],
    [
      'clicks without an impression',
      (text: string) => text.replace(/\ncontrol-3,control,[^\n]*/, '\ncontrol-3,control,0,2,0,1,10,0,0,0'),
      /users-bad\.csv:5:21: clicks \(2\) exceed impressions \(0\)/,
    ],
    [
      'more bounces than sessions',
      (text: string) => text.replace(/\ncontrol-3,control,[^\n]*/, '\ncontrol-3,control,4,2,0,1,10,3,0,0'),
      /users-bad\.csv:5:\d+: bounces \(3\) exceed sessions \(1\)/,
    ],
  ])('exits 2 naming file:line:column on %s', async (_name, corrupt, message) => {
    const bad = writeData(join(dir, 'users-bad.csv'), corrupt(csvText(users)));
    const result = await runCli(['experiment', 'analyze', '--file', bad, ...CSV_FLAGS]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('exits 2 naming the line of an impossible JSON Lines row (clicks > impressions)', async () => {
    const lines = jsonlText(experiment, users, performance).split('\n');
    lines[6] = lines[6]!.replace(/"impressions":\d+,"clicks":\d+/, '"impressions":1,"clicks":3');
    const bad = writeData(join(dir, 'impossible.jsonl'), lines.join('\n'));
    for (const command of [
      ['experiment', 'analyze'],
      ['gates', 'check'],
    ]) {
      const result = await runCli([...command, '--file', bad, '--json']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/impossible\.jsonl:7:\d+: clicks \(3\) exceed impressions \(1\)/);
      expect(result.stdout).toBe('');
    }
  });

  it.each([
    ['experiment', 'analyze'],
    ['gates', 'check'],
  ])('%s %s: --confidence-level is checked by the server rule (90 is exit 2, not "9000%% CI [NaN, NaN]")', async (...command) => {
    for (const level of ['90', '1', '0', 'abc']) {
      const result = await runCli([...command, '--file', csv, ...CSV_FLAGS, '--confidence-level', level]);
      expect(result.code, level).toBe(2);
      expect(result.stderr).toMatch(/--confidence-level.*confidence level must be strictly between 0 and 1, e\.g\. 0\.95/);
      expect(result.stdout).not.toMatch(/NaN/);
    }
  });

  it('uses a valid --confidence-level, and refuses it next to --experiment-file (which sets its own)', async () => {
    const ok = await runCli(['experiment', 'analyze', '--file', csv, ...CSV_FLAGS, '--confidence-level', '0.9']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('90% CI (diff)');
    const both = await runCli(['experiment', 'analyze', '--file', csv, '--experiment-file', experimentFile, '--confidence-level', '0.9']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--confidence-level: only with --allocations/);
  });

  it('shows Holm-adjusted intervals with several treatments, each excluding 0 exactly when significant', async () => {
    const three = makeUsers([
      { name: 'control', allocation: 34, users: 1200, ctr: 0.08, satisfaction: 0.7 },
      { name: 'fresh', allocation: 33, users: 1200, ctr: 0.089, satisfaction: 0.7 },
      { name: 'semantic', allocation: 33, users: 1200, ctr: 0.11, satisfaction: 0.72 },
    ]);
    const file = writeData(join(dir, 'three.csv'), csvText(three));
    const flags = ['--file', file, '--allocations', 'control=34,fresh=33,semantic=33', '--control', 'control'];
    const json = await runCli(['experiment', 'analyze', ...flags, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const comparisons: Array<Record<string, string | number | boolean | null>> = JSON.parse(json.stdout).comparisons;
    for (const c of comparisons) {
      const excludes = (c.adjusted_ci_low as number) > 0 || (c.adjusted_ci_high as number) < 0;
      expect(excludes, `${c.metric} ${c.variant}`).toBe(c.significant);
      expect((c.adjusted_ci_high as number) - (c.adjusted_ci_low as number)).toBeGreaterThanOrEqual(
        (c.ci_high as number) - (c.ci_low as number),
      );
    }
    const table = await runCli(['experiment', 'analyze', ...flags]);
    expect(table.stdout).toContain('95% CI (diff, Holm-adj.)');
    expect(table.stdout).toContain('Intervals are Holm-adjusted like the p-values');
    const ctr = comparisons.find((c) => c.metric === 'click_through_rate' && c.variant === 'semantic');
    expect(table.stdout).toContain(`[${formatValue(ctr?.adjusted_ci_low as number)}, ${formatValue(ctr?.adjusted_ci_high as number)}]`);
  });

  it('exits 2 naming the line of a malformed JSON Lines row, also inside .gz', async () => {
    const lines = jsonlText(experiment, users, performance).split('\n');
    lines[3] = lines[3]!.replace('"clicks":', '"clicks":-1,"was":');
    const bad = writeData(join(dir, 'bad.jsonl.gz'), lines.join('\n'));
    const result = await runCli(['experiment', 'analyze', '--file', bad, '--json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad\.jsonl\.gz:4:\d+: /);
    expect(result.stdout).toBe('');
  });

  it.each([
    [['--file', 'missing.csv'], /missing\.csv: cannot read the file \(ENOENT\)/],
    [['--file', csv], /is a CSV: give --allocations/],
    [['--file', csv, '--allocations', 'control=50,treatment=50'], /--allocations needs --control/],
    [['--file', csv, '--allocations', 'control=50,treatment=50', '--control', 'other'], /--control: "other" is not one of/],
    [['--file', csv, '--allocations', 'control=60,treatment=50', '--control', 'control'], /add up to 100/],
    [['--file', jsonl, ...CSV_FLAGS], /--allocations, --control: only for a CSV/],
    [['--file', csv, '--experiment-file', join(dir, 'nope.json')], /--experiment-file .*nope\.json: cannot read/],
    [['--file', csv, ...CSV_FLAGS, '--metric', 'ctr'], /Allowed choices are/],
    [['7', '--file', csv, ...CSV_FLAGS], /not both/],
    [[], /give an experiment id/],
  ])('exits 2 on bad input %j', async (args, message) => {
    const result = await runCli(['experiment', 'analyze', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('rejects a gzip file that is not gzip with exit 2', async () => {
    const fake = join(dir, 'fake.csv.gz');
    writeFileSync(fake, csvText(users));
    const result = await runCli(['experiment', 'analyze', '--file', fake, ...CSV_FLAGS]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/fake\.csv\.gz: cannot read the file \(not valid gzip data\)/);
  });
});

describe('gates check --file', () => {
  it('exits 4 when a CSV has no latency or error data, and 0 with --allow-inconclusive', async () => {
    const strict = await runCli(['gates', 'check', '--file', csv, ...CSV_FLAGS, '--json']);
    expect(strict.code).toBe(4);
    const report = JSON.parse(strict.stdout);
    expect(report.verdict).toBe('inconclusive');
    const p95 = report.variants[0].gates.find((g: { gate: string }) => g.gate === 'max_response_time_p95');
    expect(p95).toMatchObject({ value: null, verdict: 'inconclusive', reason: 'no data' });
    const allowed = await runCli(['gates', 'check', '--file', csv, ...CSV_FLAGS, '--allow-inconclusive']);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain('no data');
  });

  // This export predates latency histograms: p95 has no interval, so these read it by the spec's point rule.
  it('exits 0 when every variant passes every gate of a full export', async () => {
    const result = await runCli(['gates', 'check', '--file', jsonl, '--rule', 'point', '--json']);
    expect(result.code, result.stdout).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ experiment_id: 12, verdict: 'pass', exit_code: 0 });
    expect(report.variants.flatMap((v: { gates: unknown[] }) => v.gates)).toHaveLength(8);
    const errorRate = report.variants[1].gates.find((g: { gate: string }) => g.gate === 'max_error_rate');
    expect(errorRate.value).toBeCloseTo(20 / 5000, 12);
  });

  it('exits 1 when an overridden threshold fails, and --only selects gates', async () => {
    const result = await runCli(['gates', 'check', '--file', jsonl, '--rule', 'point', '--max-p95', '130', '--only', 'p95,ctr', '--json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.thresholds.max_response_time_p95).toBe(130);
    expect(report.variants.map((v: { name: string; verdict: string }) => [v.name, v.verdict])).toEqual([
      ['control', 'pass'],
      ['treatment', 'fail'],
    ]);
    expect(report.variants[1].gates.map((g: { gate: string }) => g.gate)).toEqual(['max_response_time_p95', 'min_click_through_rate']);
  });

  it('exits 1 on a sample ratio mismatch even when the gates pass', async () => {
    const skewed = writeData(
      join(dir, 'skewed-export.jsonl'),
      jsonlText(
        experiment,
        makeUsers([
          { ...VARIANTS[0]!, users: 1400 },
          { ...VARIANTS[1]!, users: 1000 },
        ]),
        performance,
      ),
    );
    const result = await runCli(['gates', 'check', '--file', skewed]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('SAMPLE RATIO MISMATCH');
  });

  it('exits 1, not 4, when one gate fails and another is inconclusive', async () => {
    const result = await runCli(['gates', 'check', '--file', csv, ...CSV_FLAGS, '--min-ctr', '0.09']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/control \(control\).*min_click_through_rate.*FAIL/);
  });

  it('exits 4 when variants are below minimum_sample_size', async () => {
    const result = await runCli(['gates', 'check', '--file', csv, ...CSV_FLAGS, '--min-sample-size', '5000', '--only', 'ctr', '--json']);
    expect(result.code).toBe(4);
    expect(JSON.parse(result.stdout).variants[0].gates[0].reason).toBe('underpowered');
  });

  it('writes JUnit XML with one test case per variant x gate, failures and skipped', async () => {
    const junit = join(dir, 'gates.xml');
    const result = await runCli(['gates', 'check', '--file', csv, ...CSV_FLAGS, '--min-ctr', '0.09', '--junit', junit]);
    expect(result.code).toBe(1);
    const doc = parseJunit(readFileSync(junit, 'utf8'));
    expect(doc.totals).toEqual({ tests: 9, failures: 1, skipped: 4, errors: 0 });
    const [gates, srm] = doc.suites;
    expect(gates?.attributes).toMatchObject({ tests: '8', failures: '1', skipped: '4' });
    expect(gates?.cases.map((c) => c.name)).toEqual([
      'control max_response_time_p95',
      'control min_click_through_rate',
      'control max_error_rate',
      'control min_user_satisfaction',
      'treatment max_response_time_p95',
      'treatment min_click_through_rate',
      'treatment max_error_rate',
      'treatment min_user_satisfaction',
    ]);
    const failing = gates?.cases.filter((c) => c.failure !== undefined);
    expect(failing?.map((c) => c.name)).toEqual(['control min_click_through_rate']);
    expect(failing?.[0]?.failure).toMatch(/is below the minimum 0\.09/);
    expect(gates?.cases.filter((c) => c.skipped).map((c) => c.name)).toEqual([
      'control max_response_time_p95',
      'control max_error_rate',
      'treatment max_response_time_p95',
      'treatment max_error_rate',
    ]);
    expect(srm?.cases).toHaveLength(1);
    expect(srm?.cases[0]?.failure).toBeUndefined();
  });

  it.each([
    [['--only', 'latency'], /--only: unknown gate "latency"/],
    [['--min-ctr', '1.5'], /--min-ctr: a rate between 0 and 1/],
    [['--max-p95', 'fast'], /expected a number/],
    [['--junit', join(dir, 'no-such-dir', 'x.xml')], /--junit .*cannot write/],
  ])('exits 2 on bad flags %j', async (args, message) => {
    const result = await runCli(['gates', 'check', '--file', jsonl, ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});
