/**
 * `gates check --rule bounds|point` as a child process on generated export files: the bounds
 * rule (default) judges each figure's interval, so a CTR just above the gate is inconclusive
 * (exit 4, a JUnit <skipped>), one far below fails (exit 1), while --rule point judges the
 * value alone as the spec does.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { parseJunit } from './support/junit.js';
import { jsonlText, makeUsers, writeData, type SyntheticVariant } from './support/make-data.js';

const dir = mkdtempSync(join(tmpdir(), 'recsvc-gates-rule-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const experiment = (method: string) => ({
  id: 31,
  name: 'gates on bounds',
  confidence_level: 0.95,
  minimum_sample_size: 1000,
  analysis_method: method,
  variants: [
    { name: 'control', traffic_allocation: 50, is_control: true },
    { name: 'treatment', traffic_allocation: 50, is_control: false },
  ],
});
const performance = [
  { variant: 'control', requests: 20000, errors: 0, latency_ms_p95: 120, cache_hits: 0, cache_lookups: 0 },
  { variant: 'treatment', requests: 20000, errors: 150, latency_ms_p95: 150, cache_hits: 0, cache_lookups: 0 },
];

function exportFile(name: string, treatmentCtr: number, method = 'sequential'): string {
  const variants: SyntheticVariant[] = [
    { name: 'control', allocation: 50, users: 1500, ctr: 0.09, satisfaction: 0.7 },
    { name: 'treatment', allocation: 50, users: 1500, ctr: treatmentCtr, satisfaction: 0.7 },
  ];
  return writeData(join(dir, name), jsonlText(experiment(method), makeUsers(variants), performance));
}

const nearGate = exportFile('near.jsonl', 0.051);
const farBelow = exportFile('below.jsonl', 0.03);

interface Gate {
  gate: string;
  value: number;
  ci_low?: number | null;
  ci_high?: number | null;
  rule: string;
  verdict: string;
  reason?: string;
}
const gateOf = (stdout: string, variant: number, gate: string): Gate =>
  JSON.parse(stdout).variants[variant].gates.find((g: Gate) => g.gate === gate);

describe('gates check --rule', () => {
  it('bounds (default): a CTR whose interval spans 0.05 is inconclusive (exit 4); --rule point passes it on its value (exit 0)', async () => {
    const bounds = await runCli(['gates', 'check', '--file', nearGate, '--only', 'ctr', '--json']);
    expect(bounds.code, bounds.stderr).toBe(4);
    const ctr = gateOf(bounds.stdout, 1, 'min_click_through_rate');
    expect(ctr).toMatchObject({ rule: 'bounds', verdict: 'inconclusive', reason: 'interval spans threshold' });
    expect(ctr.value).toBeGreaterThanOrEqual(0.05);
    expect(ctr.ci_low).toBeLessThan(0.05);
    expect(ctr.ci_high).toBeGreaterThan(0.05);
    expect(gateOf(bounds.stdout, 0, 'min_click_through_rate')).toMatchObject({ verdict: 'pass' });

    const point = await runCli(['gates', 'check', '--file', nearGate, '--only', 'ctr', '--rule', 'point', '--json']);
    expect(point.code, point.stderr).toBe(0);
    expect(gateOf(point.stdout, 1, 'min_click_through_rate')).toMatchObject({ rule: 'point', verdict: 'pass', value: ctr.value });
    expect(gateOf(point.stdout, 1, 'min_click_through_rate')).not.toHaveProperty('ci_low');
  });

  it('bounds: a CTR whose whole interval is below 0.05 fails (exit 1), and --allow-inconclusive does not hide it', async () => {
    const result = await runCli(['gates', 'check', '--file', farBelow, '--allow-inconclusive', '--json']);
    expect(result.code, result.stderr).toBe(1);
    const ctr = gateOf(result.stdout, 1, 'min_click_through_rate');
    expect(ctr).toMatchObject({ verdict: 'fail', rule: 'bounds' });
    expect(ctr.ci_high).toBeLessThan(0.05);
  });

  it('the sequential interval is wider than the fixed one recorded for the same data', async () => {
    const fixedFile = exportFile('near-fixed.jsonl', 0.051, 'fixed');
    const sequential = gateOf((await runCli(['gates', 'check', '--file', nearGate, '--json'])).stdout, 1, 'min_click_through_rate');
    const fixed = gateOf((await runCli(['gates', 'check', '--file', fixedFile, '--json'])).stdout, 1, 'min_click_through_rate');
    expect(fixed.value).toBe(sequential.value);
    expect((sequential.ci_high as number) - (sequential.ci_low as number)).toBeGreaterThan(
      (fixed.ci_high as number) - (fixed.ci_low as number),
    );
  });

  it('error rate by its upper bound: 0 of 20,000 passes, 150 of 20,000 (0.75%) passes too; p95 without a histogram has no interval', async () => {
    const result = await runCli(['gates', 'check', '--file', nearGate, '--only', 'error_rate,p95', '--json']);
    expect(result.code, result.stderr).toBe(4);
    expect(gateOf(result.stdout, 0, 'max_error_rate')).toMatchObject({ value: 0, ci_low: 0, verdict: 'pass' });
    const treatment = gateOf(result.stdout, 1, 'max_error_rate');
    expect(treatment).toMatchObject({ value: 0.0075, verdict: 'pass' });
    expect(treatment.ci_high).toBeLessThan(0.01);
    expect(gateOf(result.stdout, 1, 'max_response_time_p95')).toMatchObject({ verdict: 'inconclusive', reason: 'no interval' });
    const point = await runCli(['gates', 'check', '--file', nearGate, '--only', 'error_rate,p95', '--rule', 'point']);
    expect(point.code, point.stderr).toBe(0);
  });

  it('JUnit XML: an inconclusive gate is <skipped> naming why, a failing one <failure>', async () => {
    const junit = join(dir, 'gates.xml');
    const result = await runCli(['gates', 'check', '--file', nearGate, '--only', 'ctr', '--junit', junit]);
    expect(result.code).toBe(4);
    const [gates] = parseJunit(readFileSync(junit, 'utf8')).suites;
    const treatment = gates?.cases.find((c) => c.name === 'treatment min_click_through_rate');
    expect(treatment?.skipped).toBe(true);
    expect(readFileSync(junit, 'utf8')).toMatch(/<skipped message="interval spans threshold: /);
  });

  it('exits 2 on an unknown rule, naming the choices', async () => {
    const result = await runCli(['gates', 'check', '--file', nearGate, '--rule', 'median']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--rule: expected bounds or point \(got "median"\)/);
  });
});
