/**
 * `recsvc demo traffic` against a real `recsvc serve --demo` child process with its rate
 * limits on: the simulated users fill the experiment through the API, and the server's own
 * analysis (`recsvc experiment analyze`) finds the planted lift, and no difference in an A/A run.
 * Seeded, so each run is the same; the sizes put the planted lift several standard errors out.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe, tempDir, type ServeProcess } from '../helpers/cli.js';

interface Summary {
  users_simulated: number;
  stopped_by: string;
  lift: number;
  variants: Array<{ name: string; is_control: boolean; users: number; impressions: number; clicks: number; click_probability: number }>;
  events: { accepted: number; rejected: number };
}

interface Analysis {
  sample_sizes: Record<string, number>;
  comparisons: Array<{ metric: string; variant: string; ci_low: number; ci_high: number; effect_size: number; significant: boolean }>;
  srm: { mismatch: boolean };
}

const USERS = 400;
const CTR = 0.1;

let server: ServeProcess;
let db: string;
let env: Record<string, string>;

const cli = (args: string[]) => runCli(args, { env });

async function startedExperiment(name: string): Promise<number> {
  const created = await cli([
    ...['experiment', 'create', '--no-interactive', '--name', name, '--variant', 'control:50'],
    ...['--variant', 'treatment:50:0.2,0.5,0.3,0', '--control', 'control', '--min-sample-size', '100', '--json'],
  ]);
  expect(created.code, created.stderr).toBe(0);
  const id = (JSON.parse(created.stdout) as { id: number }).id;
  expect((await cli(['experiment', 'start', String(id)])).code).toBe(0);
  return id;
}

async function traffic(id: number, lift: string, seed: number): Promise<Summary> {
  const args = ['demo', 'traffic', '--experiment', String(id), '--users', String(USERS), '--lift', lift, '--seed', String(seed)];
  const result = await cli([...args, '--ctr', String(CTR), '--duration', '240', '--db', db, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Summary;
}

async function analyse(id: number): Promise<{ analysis: Analysis; ctr: Analysis['comparisons'][number] }> {
  const result = await cli(['experiment', 'analyze', String(id), '--method', 'fixed', '--json']);
  expect(result.code, result.stderr).toBe(0);
  const analysis = JSON.parse(result.stdout) as Analysis;
  const ctr = analysis.comparisons.find((c) => c.metric === 'click_through_rate' && c.variant === 'treatment');
  expect(ctr).toBeDefined();
  return { analysis, ctr: ctr! };
}

beforeAll(async () => {
  const dir = tempDir('recsvc-demo-traffic-');
  db = join(dir, 'recsvc.db');
  const minted = await runCli(['token', 'create', '--scopes', 'read,write,admin', '--json', '--db', db]);
  const token = (JSON.parse(minted.stdout) as { token: string }).token;
  // Rate limits on, at 5 times the spec's so the test's own admin commands fit in its analytics
  // limit (100 a minute): 400 users through one token would still be refused after 150 requests.
  server = await startServe(['--db', db, '--demo', '--log-level', 'info'], { RECSVC_RATE_LIMIT_SCALE: '5' }, 90_000);
  env = { RECSVC_SERVER: server.baseUrl, RECSVC_TOKEN: token };
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe('recsvc demo traffic', () => {
  it('refuses what cannot plant a known effect: a DRAFT experiment, a bad --lift, no database or another one at --db', async () => {
    const args = ['--name', 'draft', '--variant', 'a:50', '--variant', 'b:50', '--control', 'a'];
    const created = await cli(['experiment', 'create', '--no-interactive', ...args]);
    expect(created.code, created.stderr).toBe(0);
    const id = created.stdout.trim();
    const draft = await cli(['demo', 'traffic', '--experiment', id, '--db', db]);
    expect(draft.code).toBe(2);
    expect(draft.stderr).toContain(`experiment ${id} is DRAFT, so nobody is assigned to it: start it first: recsvc experiment start ${id}`);
    const lift = await cli(['demo', 'traffic', '--experiment', id, '--lift', 'lots']);
    expect(lift.code).toBe(2);
    expect(lift.stderr).toContain('--lift: expected a percentage above -100');
    const impossible = await cli(['demo', 'traffic', '--experiment', id, '--ctr', '0.6', '--lift', '80%']);
    expect(impossible.code).toBe(2);
    expect(impossible.stderr).toContain('is not below 1');
    expect((await cli(['experiment', 'start', id])).code).toBe(0);
    const nowhere = await cli(['demo', 'traffic', '--experiment', id, '--db', join(tempDir(), 'none.db')]);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toMatch(/--db: no database at .*none\.db/);
    const elsewhere = join(tempDir(), 'other.db');
    expect((await runCli(['token', 'create', '--scopes', 'read', '--db', elsewhere])).code).toBe(0);
    const unknown = await cli(['demo', 'traffic', '--experiment', id, '--users', '3', '--db', elsewhere]);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('the server does not accept the tokens minted for the simulated users');
    expect((await cli(['experiment', 'stop', id])).code).toBe(0);
  }, 120_000);

  it('fills an experiment through the API; the analysis finds the planted +30% lift', async () => {
    const id = await startedExperiment('planted');
    const summary = await traffic(id, '30%', 11);
    expect(summary).toMatchObject({ users_simulated: USERS, stopped_by: 'users', lift: 0.3, events: { rejected: 0 } });
    const [control, treatment] = summary.variants;
    expect(control).toMatchObject({ name: 'control', is_control: true, click_probability: CTR });
    expect(treatment!.click_probability).toBeCloseTo(CTR * 1.3, 12);

    const { analysis, ctr } = await analyse(id);
    // With another experiment open, a user could land there: refused, naming it. (Both are then
    // stopped before the analysis is judged, so the next test starts with none open.)
    const other = await startedExperiment('other');
    const refused = await cli(['demo', 'traffic', '--experiment', String(id), '--db', db]);
    expect((await cli(['experiment', 'stop', String(other)])).code).toBe(0);
    expect((await cli(['experiment', 'stop', String(id)])).code).toBe(0);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`experiment ${other} "other" is ACTIVE too`);

    // Every simulated user was assigned by the server, to the variant the simulation clicked for.
    expect(analysis.sample_sizes).toEqual({ control: control!.users, treatment: treatment!.users });
    expect(control!.users).toBeGreaterThan(150);
    expect(treatment!.users).toBeGreaterThan(150);
    expect(analysis.srm.mismatch).toBe(false);
    // The interval of the difference covers the planted one (0.1 x 30%) and excludes 0.
    expect(ctr.ci_low).toBeLessThanOrEqual(CTR * 0.3);
    expect(ctr.ci_high).toBeGreaterThanOrEqual(CTR * 0.3);
    expect(ctr.significant).toBe(true);
    expect(ctr.effect_size).toBeGreaterThan(0);
  }, 240_000);

  it('with --lift 0 (an A/A run) the analysis finds no difference, and the per-user tokens are revoked', async () => {
    const id = await startedExperiment('a/a');
    const summary = await traffic(id, '0', 12);
    expect(summary.users_simulated).toBe(USERS);
    const { ctr } = await analyse(id);
    expect(ctr.significant).toBe(false);
    expect(ctr.ci_low).toBeLessThanOrEqual(0);
    expect(ctr.ci_high).toBeGreaterThanOrEqual(0);

    const live = await runCli(['token', 'list', '--json', '--db', db]);
    expect((JSON.parse(live.stdout) as Array<{ label: string | null }>).filter((t) => t.label === 'recsvc demo traffic')).toEqual([]);
  }, 240_000);
});
