/**
 * The primary metric, guardrails and gate rule from the terminal, as child processes against a
 * live server: `experiment create --primary-metric/--guardrail/--gate-rule` (bad names exit 2
 * naming the flag or field), `status` and `analyze` showing each metric's role and the decision
 * line drawn from the primary alone (`--json` carries the roles), `status --by-instance`, and
 * the export carrying the roles and the gate rule to `analyze --file` and `gates check --file`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { startServerProcess, type ServerProcess } from '../../helpers/server-process.js';
import { seedExperiment } from '../support/seed-experiment.js';

let server: ServerProcess;
let dir: string;
let id: number;
const cli = (args: string[]) => runCli(args, { env: server.env });
const create = (extra: string[]) =>
  cli(['experiment', 'create', '--name', 'roles', '--variant', 'control:50', '--variant', 'recency:50', '--control', 'control', ...extra]);

beforeAll(async () => {
  server = await startServerProcess();
  dir = mkdtempSync(join(tmpdir(), 'recsvc-roles-'));
  const created = await create([
    '--min-sample-size',
    '50',
    '--primary-metric',
    'ctr',
    '--guardrail',
    'bounce_rate,session_duration',
    '--gate-rule',
    'point',
  ]);
  expect(created.code, created.stderr).toBe(0);
  expect(created.stderr).toMatch(/primary metric: click_through_rate; guardrails: bounce_rate, session_duration .*; gate rule: point/);
  id = Number(created.stdout.trim());
  expect((await cli(['experiment', 'start', String(id)])).code).toBe(0);
  await seedExperiment(server, {
    experimentId: id,
    variants: [
      { name: 'control', traffic_allocation: 50 },
      { name: 'recency', traffic_allocation: 50 },
    ],
    users: 400,
    lift: { recency: 0.3 },
  });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('experiment create with roles', () => {
  it('stores the primary metric, the guardrails and the gate rule the flags name', async () => {
    const shown = await cli([
      'experiment',
      'create',
      '--name',
      'json',
      '--variant',
      'a:50',
      '--variant',
      'b:50',
      '--control',
      'a',
      '--guardrail',
      'none',
      '--json',
    ]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ primary_metric: 'click_through_rate', guardrail_metrics: [], gate_rule: 'bounds' });
  });

  it('exits 2 for a performance figure named as a guardrail, pointing at the gates', async () => {
    const result = await create(['--guardrail', 'error_rate,p95_latency_ms']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--guardrail: unknown metric "error_rate".*judged by the gates/);
  });

  it('exits 2 naming the field when the primary metric is also a guardrail', async () => {
    const result = await create(['--primary-metric', 'ctr', '--guardrail', 'click_through_rate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/guardrail_metrics\[0\]: click_through_rate is the primary metric/);
  });
});

describe('status and analyze with roles', () => {
  it('status shows each metric with its role, the verdict of the primary metric only and the guardrails beside it', async () => {
    const result = await cli(['experiment', 'status', String(id)]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/click_through_rate\s+primary/);
    expect(result.stdout).toMatch(/bounce_rate\s+guardrail/);
    expect(result.stdout).toMatch(/user_satisfaction\s+exploratory/);
    const verdicts = result.stdout.split('\n').filter((line) => / vs control: /.test(line));
    expect(verdicts).toHaveLength(2);
    expect(verdicts[0]).toMatch(/^click_through_rate recency vs control: .*: (significant|not significant)$/);
    expect(verdicts[1]).toMatch(
      /^guardrails recency vs control: no harm detected \(bounce_rate, session_duration; one-sided, Holm-corrected\)$/,
    );
  });

  it('status --json carries the roles, the guardrails and the decision; --by-instance adds the breakdown', async () => {
    const plain = await cli(['experiment', 'status', String(id), '--json']);
    const report = JSON.parse(plain.stdout);
    expect(report.metric_roles).toMatchObject({ click_through_rate: 'primary', bounce_rate: 'guardrail', interaction_rate: 'exploratory' });
    expect(report.guardrails.map((g: { metric: string }) => g.metric)).toEqual(['bounce_rate', 'session_duration']);
    expect(report.decision.metric).toBe('click_through_rate');
    expect(report).not.toHaveProperty('by_instance');
    const byInstance = JSON.parse((await cli(['experiment', 'status', String(id), '--json', '--by-instance'])).stdout);
    expect(byInstance.by_instance).toEqual([expect.objectContaining({ instance: 'local', users: 400 })]);
    const text = await cli(['experiment', 'status', String(id), '--by-instance']);
    expect(text.stdout).toMatch(/By instance/);
    expect(text.stdout).toMatch(/local\s+400/);
  });

  it('analyze prints the role table and the decision, and --json the roles', async () => {
    const text = await cli(['experiment', 'analyze', String(id)]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/Metric roles \(the decision is drawn from the primary metric alone\)/);
    expect(text.stdout).toMatch(/session_duration\s+guardrail.*harm = decrease, 1-sided Holm p/);
    const decisions = text.stdout.split('\n').filter((line) => line.startsWith('Decision'));
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatch(
      /^Decision \(primary metric click_through_rate\): recency (better|worse|no significant difference).*; guardrails: no harm detected$/,
    );
    const json = JSON.parse((await cli(['experiment', 'analyze', String(id), '--json'])).stdout);
    expect(json.comparisons.every((c: { role: string }) => ['primary', 'guardrail', 'exploratory'].includes(c.role))).toBe(true);
  });
});

describe('gates check online', () => {
  it("judges by the experiment's stored gate rule, and --rule bounds asks the server for that rule's intervals", async () => {
    const rulesOf = (stdout: string) =>
      new Set(JSON.parse(stdout).variants.flatMap((v: { gates: { rule: string }[] }) => v.gates.map((g) => g.rule)));
    const stored = await cli(['gates', 'check', String(id), '--json', '--allow-inconclusive']);
    expect(rulesOf(stored.stdout)).toEqual(new Set(['point']));
    const bounds = await cli(['gates', 'check', String(id), '--json', '--allow-inconclusive', '--rule', 'bounds']);
    const ctr = JSON.parse(bounds.stdout).variants[1].gates.find((g: { gate: string }) => g.gate === 'min_click_through_rate');
    expect(ctr).toMatchObject({ rule: 'bounds' });
    expect(typeof ctr.ci_low).toBe('number');
  });
});

describe('offline, from the export', () => {
  it("analyze --file uses the export's roles and gives the online numbers; gates check --file judges by its gate rule", async () => {
    const file = join(dir, `exp-${id}.jsonl`);
    expect((await cli(['experiment', 'export', String(id), '-o', file])).code).toBe(0);
    const online = JSON.parse((await cli(['experiment', 'analyze', String(id), '--json'])).stdout);
    const offline = JSON.parse((await cli(['experiment', 'analyze', '--file', file, '--json'])).stdout);
    expect(offline.guardrail_metrics).toEqual(['bounce_rate', 'session_duration']);
    expect(offline).toEqual(online);
    const gates = await cli(['gates', 'check', '--file', file, '--json', '--allow-inconclusive']);
    const rules = JSON.parse(gates.stdout).variants.flatMap((v: { gates: { rule: string }[] }) => v.gates.map((g) => g.rule));
    expect(new Set(rules)).toEqual(new Set(['point']));
    const bounds = await cli(['gates', 'check', '--file', file, '--json', '--allow-inconclusive', '--rule', 'bounds']);
    expect(JSON.parse(bounds.stdout).variants[1].gates[0].rule).toBe('bounds');
  });
});
