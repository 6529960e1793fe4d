/** `recsvc experiment report` as a child process: offline on exports taken at different times, and online against a live server. */
import { mkdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/cli.js';
import type { ServerProcess } from '../../helpers/server-process.js';
import { csvText, jsonlText, makeUsers, writeData, type SyntheticVariant } from '../support/make-data.js';
import { startSeededExperiment } from '../support/seed-experiment.js';

const dir = tempDir('recsvc-report-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const experiment = {
  id: 12,
  name: 'ranking <v2>',
  status: 'ACTIVE',
  confidence_level: 0.95,
  minimum_sample_size: 300,
  analysis_method: 'sequential',
  variants: [
    { name: 'control', traffic_allocation: 50, is_control: true },
    { name: 'treatment', traffic_allocation: 50, is_control: false },
  ],
};
const performance = [
  { variant: 'control', requests: 5000, errors: 10, latency_ms_p95: 120, cache_hits: 10, cache_lookups: 20 },
  { variant: 'treatment', requests: 5000, errors: 20, latency_ms_p95: 150, cache_hits: 10, cache_lookups: 20 },
];
const grow = (users: number): SyntheticVariant[] => [
  { name: 'control', allocation: 50, users, ctr: 0.08, satisfaction: 0.7 },
  { name: 'treatment', allocation: 50, users, ctr: 0.1, satisfaction: 0.72 },
];

/** One export per day; `exported_at` when asked, else the file's mtime is set to that day. */
function dailyExports(prefix: string, withExportedAt: boolean): string[] {
  return [200, 500, 900].map((users, d) => {
    const at = new Date(Date.UTC(2026, 2, 1 + d));
    const line = withExportedAt ? { ...experiment, exported_at: at.toISOString() } : experiment;
    const path = writeData(
      join(dir, `${prefix}-day${d + 1}.jsonl${d === 2 ? '.gz' : ''}`),
      jsonlText(line, makeUsers(grow(users)), performance),
    );
    if (!withExportedAt) utimesSync(path, at, at);
    return path;
  });
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The gate rows of the report (variant cell, gate cell, verdict class), as gates check reports them. */
function gateRowPatterns(gatesJson: string): RegExp[] {
  const report = JSON.parse(gatesJson) as {
    variants: Array<{ name: string; is_control: boolean; gates: Array<{ gate: string; verdict: string }> }>;
  };
  return report.variants.flatMap((v) =>
    v.gates.map(
      (g) =>
        new RegExp(
          `<td>${escapeRegExp(v.is_control ? `${v.name} (control)` : v.name)}</td><td>${g.gate}</td>(<td>[^<]*</td>){3}<td><span class="${g.verdict}">`,
        ),
    ),
  );
}

/** The users chart's points per variant, read back from the SVG tooltips. */
function usersPoints(html: string): Record<string, string[]> {
  const section = html.slice(html.indexOf('<section id="users">'), html.indexOf('<section id="gates">'));
  const out: Record<string, string[]> = {};
  for (const m of section.matchAll(/<g class="series" data-series="([^"]+)">(.*?)<\/g>/g))
    out[m[1] as string] = [...(m[2] as string).matchAll(/<title>([^<]*)<\/title>/g)].map((t) => t[1] as string);
  return out;
}

describe('experiment report --file', () => {
  const exports = dailyExports('exp', true);

  it('writes experiment-<id>-report.html in the working directory and prints its path', async () => {
    const cwd = join(dir, 'cwd');
    mkdirSync(cwd);
    const result = await runCli(['experiment', 'report', '--file', exports[2]!, '--file', exports[0]!, '--file', exports[1]!], { cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('experiment-12-report.html\n');
    const html = readFileSync(join(cwd, 'experiment-12-report.html'), 'utf8');
    expect(html).toContain('Experiment 12 “ranking &lt;v2&gt;”');
    expect(html).toContain('3 snapshots, 2026-03-01 to 2026-03-03 UTC');
    // Users per variant over time, in time order whatever the order of --file.
    expect(usersPoints(html)).toEqual({
      control: ['control 2026-03-01: 200', 'control 2026-03-02: 500', 'control 2026-03-03: 900'],
      treatment: ['treatment 2026-03-01: 200', 'treatment 2026-03-02: 500', 'treatment 2026-03-03: 900'],
    });
    expect(html.match(/<svg /g)).toHaveLength(7);
  });

  it('--json prints the path and the size; -o picks the file', async () => {
    const out = join(dir, 'custom.html');
    const result = await runCli(['experiment', 'report', '-f', exports[0]!, '-f', exports[1]!, '-o', out, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ path: out, bytes: statSync(out).size });
  });

  it("the latest snapshot's analysis is what analyze --file says, and its gates what gates check --file says", async () => {
    const out = join(dir, 'latest.html');
    const [report, analyze, gates] = await Promise.all([
      runCli(['experiment', 'report', '-f', exports[0]!, '-f', exports[2]!, '-o', out]),
      runCli(['experiment', 'analyze', '--file', exports[2]!, '--json']),
      runCli(['gates', 'check', '--file', exports[2]!, '--json', '--allow-inconclusive']),
    ]);
    expect(report.code, report.stderr).toBe(0);
    const html = readFileSync(out, 'utf8');
    const ctr = JSON.parse(analyze.stdout).comparisons.find((c: { metric: string }) => c.metric === 'click_through_rate');
    expect(html).toContain(`<title>treatment − control 2026-03-03: ${Number(ctr.difference.toPrecision(3))} [`);
    const rows = gateRowPatterns(gates.stdout);
    expect(rows).toHaveLength(8);
    for (const row of rows) expect(html).toMatch(row);
  });

  it("without exported_at each file's modification time dates its snapshot", async () => {
    const files = dailyExports('mtime', false);
    const out = join(dir, 'mtime.html');
    const result = await runCli(['experiment', 'report', '-f', files[1]!, '-f', files[0]!, '-f', files[2]!, '-o', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(usersPoints(readFileSync(out, 'utf8')).control).toEqual([
      'control 2026-03-01: 200',
      'control 2026-03-02: 500',
      'control 2026-03-03: 900',
    ]);
  });

  it('plots one export day by day when its user lines carry assigned_at and per-day counts', async () => {
    // Each user enrolled on day 1 + (i % 3), all their counts on the day they enrolled.
    const users = makeUsers(grow(300));
    const keys = [
      'impressions',
      'clicks',
      'interactions',
      'sessions',
      'session_seconds',
      'bounces',
      'feedback_positive',
      'feedback_negative',
    ];
    const text = jsonlText(experiment, users, performance)
      .split('\n')
      .map((line, i) => {
        if (!line.includes('"type":"user"')) return line;
        const day = `2026-03-0${1 + (i % 3)}`;
        const record = JSON.parse(line) as Record<string, number>;
        return JSON.stringify({
          ...record,
          assigned_at: `${day}T12:00:00Z`,
          days: { [day]: Object.fromEntries(keys.map((k) => [k, record[k]])) },
        });
      })
      .join('\n');
    const file = writeData(join(dir, 'timed.jsonl'), text);
    const out = join(dir, 'timed.html');
    const result = await runCli(['experiment', 'report', '-f', file, '-o', out]);
    expect(result.code, result.stderr).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('3 days, 2026-03-01 to 2026-03-03 UTC');
    expect(html).toContain('Daily points from the export');
    const perDay = (variant: string) => [1, 2, 3].map((d) => users.filter((u, i) => u.variant === variant && (i + 1) % 3 <= d - 1).length);
    expect(usersPoints(html).control?.map((t) => Number(t.split(': ')[1]))).toEqual(perDay('control'));
    const ctr = /data-metric="click_through_rate">.*?<g class="series" data-series="treatment − control">(.*?)<\/g>/.exec(html)?.[1] ?? '';
    expect(ctr.match(/<circle class="point"/g)).toHaveLength(3);
  });

  it.each([
    ['an id and --file', (f: string[]) => ['12', '--file', f[0]!], /give an experiment id \(server\) or --file/],
    [
      'an interleaving experiment',
      () => ['-f', writeData(join(dir, 'inter.jsonl'), jsonlText({ ...experiment, experiment_type: 'interleaving' }, makeUsers(grow(5))))],
      /inter\.jsonl is an interleaving experiment: the report charts A\/B comparisons/,
    ],
    [
      'a CSV',
      () => ['--file', writeData(join(dir, 'u.csv'), csvText(makeUsers(grow(5))))],
      /u\.csv is a CSV: the report reads JSON Lines exports/,
    ],
    [
      'snapshots of different experiments',
      (f: string[]) => ['-f', f[0]!, '-f', writeData(join(dir, 'other.jsonl'), jsonlText({ ...experiment, id: 13 }, makeUsers(grow(5))))],
      /other\.jsonl is not a snapshot of the same experiment as .*exp-day1\.jsonl \(id 13 vs 12/,
    ],
    [
      'a malformed line',
      () => ['-f', writeData(join(dir, 'bad.jsonl'), `${JSON.stringify({ type: 'experiment', ...experiment })}\n{"type":"user",\n`)],
      /bad\.jsonl:2:\d+: invalid JSON/,
    ],
    [
      'an unwritable output',
      (f: string[]) => ['-f', f[0]!, '-o', join(dir, 'missing', 'x.html')],
      /-o .*missing\/x\.html: cannot write the file \(ENOENT\)/,
    ],
  ])('exits 2 with one line for %s', async (_name, args, message) => {
    const result = await runCli(['experiment', 'report', ...args(exports)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('experiment report <id> against a live server', () => {
  let server: ServerProcess;
  let id: number;

  beforeAll(async () => {
    ({ server, id } = await startSeededExperiment(300));
  }, 60_000);
  afterAll(async () => server?.stop());

  it("reports the server's data now: users as status counts them, gates as GET …/gates judges them", async () => {
    const out = join(dir, 'online.html');
    const [report, status, gates] = await Promise.all([
      runCli(['experiment', 'report', String(id), '-o', out, '--json'], { env: server.env }),
      runCli(['experiment', 'status', String(id), '--json'], { env: server.env }),
      runCli(['gates', 'check', String(id), '--json', '--allow-inconclusive'], { env: server.env }),
    ]);
    expect(report.code, report.stderr).toBe(0);
    expect(JSON.parse(report.stdout).path).toBe(out);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain(`Experiment ${id}`);
    expect(html).toContain('1 snapshot');
    const users = usersPoints(html);
    for (const v of JSON.parse(status.stdout).variants as Array<{ name: string; users_assigned: number }>)
      expect(users[v.name]?.[0]).toMatch(new RegExp(`: ${v.users_assigned}$`));
    const rows = gateRowPatterns(gates.stdout);
    expect(rows).toHaveLength(8);
    for (const row of rows) expect(html).toMatch(row);
  });

  it('exits 3 naming the server when the experiment does not exist', async () => {
    const result = await runCli(['experiment', 'report', '999', '-o', join(dir, 'none.html')], { env: server.env });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^recsvc: .*not found/i);
  });
});
