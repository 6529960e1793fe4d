/** `gates check --summary-md FILE` as a child process: the Markdown section beside the JUnit XML, appended per experiment. */
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';
import { jsonlText, makeUsers, writeData, type SyntheticVariant } from '../support/make-data.js';

const dir = tempDir('recsvc-summary-md-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const variants = (users: number): SyntheticVariant[] => [
  { name: 'control', allocation: 50, users, ctr: 0.08, satisfaction: 0.7 },
  { name: 'treat|ment <b>', allocation: 50, users, ctr: 0.11, satisfaction: 0.72 },
];
const experiment = (id: number) => ({
  id,
  name: 'ranking',
  confidence_level: 0.95,
  minimum_sample_size: 1000,
  variants: [
    { name: 'control', traffic_allocation: 50, is_control: true },
    { name: 'treat|ment <b>', traffic_allocation: 50, is_control: false },
  ],
});
const performance = [
  {
    variant: 'control',
    requests: 5000,
    errors: 10,
    latency_ms_p95: 120,
    cache_hits: 10,
    cache_lookups: 20,
    latency_histogram: { '2': 4000, '3': 1000 },
  },
  {
    variant: 'treat|ment <b>',
    requests: 5000,
    errors: 20,
    latency_ms_p95: 150,
    cache_hits: 10,
    cache_lookups: 20,
    latency_histogram: { '2': 4000, '3': 1000 },
  },
];
const decided = writeData(join(dir, 'exp7.jsonl'), jsonlText(experiment(7), makeUsers(variants(1200)), performance));
const early = writeData(join(dir, 'exp8.jsonl'), jsonlText(experiment(8), makeUsers(variants(200)), performance));

interface GatesJson {
  verdict: string;
  variants: Array<{ name: string; gates: Array<{ gate: string; verdict: string; value: number | null }> }>;
}

describe('gates check --summary-md', () => {
  it('writes the Markdown summary beside the JUnit XML: a row per variant x gate with the verdict gates check reports', async () => {
    const md = join(dir, 'one.md');
    const junit = join(dir, 'gates.xml');
    const result = await runCli(['gates', 'check', '--file', decided, '--junit', junit, '--summary-md', md, '--json']);
    const report = JSON.parse(result.stdout) as GatesJson;
    expect(result.code).toBe(report.verdict === 'pass' ? 0 : report.verdict === 'fail' ? 1 : 4);
    expect(statSync(junit).size).toBeGreaterThan(0);
    const text = readFileSync(md, 'utf8');
    const mark = { pass: '✅ pass', fail: '❌ fail', inconclusive: '⚠️ inconclusive' }[report.verdict];
    expect(text.split('\n')[0]).toBe(`### ${mark} — Gates: experiment 7`);
    expect(text).toContain(`Source: ${decided.replace(/_/g, '\\_')}`);
    const rows = text.split('\n').filter((line) => /^\| (control|treat)/.test(line));
    expect(rows).toHaveLength(8);
    for (const variant of report.variants) {
      const shown = variant.name === 'control' ? 'control (control)' : 'treat\\|ment &lt;b&gt;';
      for (const gate of variant.gates) {
        const row = rows.find((r) => r.startsWith(`| ${shown} | 1,200 | ${gate.gate} |`));
        expect(row, `${variant.name} ${gate.gate}`).toBeDefined();
        const unit = gate.gate === 'max_response_time_p95' ? ' ms' : '';
        expect(row).toContain(`| ${gate.value === null ? '—' : `${Number(gate.value.toPrecision(6))}${unit}`} |`);
        expect(row).toMatch(new RegExp(`\\| (✅|❌|⚠️) ${gate.verdict}( \\([a-z ]+\\))? \\|$`));
      }
    }
  });

  it('appends one section per experiment, as GitHub step summaries are written', async () => {
    const md = join(dir, 'step-summary.md');
    writeFileSync(md, '## Rollout checks\n');
    const first = await runCli(['gates', 'check', '--file', decided, '--summary-md', md]);
    const second = await runCli(['gates', 'check', '--file', early, '--summary-md', md]);
    expect([first.code, second.code]).not.toContain(2);
    const text = readFileSync(md, 'utf8');
    expect(text.startsWith('## Rollout checks\n\n### ')).toBe(true);
    expect(text.match(/^### .* — Gates: experiment (\d+)$/gm)?.map((h) => h.replace(/.* /, ''))).toEqual(['7', '8']);
    // Experiment 8 has 200 users per variant, under its minimum of 1,000: inconclusive, and exit 4.
    expect(second.code).toBe(4);
    expect(text).toContain('### ⚠️ inconclusive — Gates: experiment 8');
    expect(text).toContain('⚠️ inconclusive (underpowered)');
  });

  it('leaves a nearly full summary alone with a warning, and keeps the verdict as the exit code', async () => {
    const md = join(dir, 'full.md');
    writeFileSync(md, 'x'.repeat(1024 * 1024 - 100));
    const result = await runCli(['gates', 'check', '--file', early, '--summary-md', md]);
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/warning: --summary-md .*full\.md: not written, the file already holds 1048476 bytes/);
    expect(statSync(md).size).toBe(1024 * 1024 - 100);
  });

  it('an unwritable path is a usage error naming it', async () => {
    const result = await runCli(['gates', 'check', '--file', early, '--summary-md', join(dir, 'missing', 's.md')]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(/^recsvc: --summary-md .*missing\/s\.md: cannot write the file \(ENOENT\)$/);
  });
});
