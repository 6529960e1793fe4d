/**
 * Every server-talking command as a child process against a real `recsvc serve` on
 * 127.0.0.1 (temp database, rate limits off, admin token from `recsvc token create`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { parseJunit } from './support/junit.js';
import { REPO_ROOT, jsonLines, runCli } from '../helpers/cli.js';
import { byPseudonym, pseudonymsOf, seedExperiment } from './support/seed-experiment.js';

const FIXTURE = `${REPO_ROOT}test/fixtures/cli/experiment.json`;
/** Box-drawing and block characters (U+2500–U+259F): only a terminal gets them. */
const DRAWING = /[\u2500-\u259f]/;
const VARIANTS = [
  { name: 'control', traffic_allocation: 50 },
  { name: 'recency', traffic_allocation: 50 },
];

let server: ServerProcess;
let dir: string;
const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { ...server.env, ...env } });

async function createFromFixture(): Promise<number> {
  const created = await cli(['experiment', 'create', '--file', FIXTURE]);
  expect(created.code, created.stderr).toBe(0);
  return Number(created.stdout.trim());
}

beforeAll(async () => {
  server = await startServerProcess();
  dir = mkdtempSync(join(tmpdir(), 'recsvc-cli-'));
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('experiment create', () => {
  it('creates from --file and prints only the new id', async () => {
    const result = await cli(['experiment', 'create', '--file', FIXTURE]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\d+\n$/);
    expect(result.stderr).toMatch(/created experiment \d+ "recency boost": DRAFT/);
  });

  it('creates from a YAML --file the same as from JSON', async () => {
    const result = await cli(['experiment', 'create', '--file', `${REPO_ROOT}test/fixtures/cli/experiment.yaml`, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const experiment = JSON.parse(result.stdout);
    expect(experiment).toMatchObject({ name: 'recency boost (yaml)', status: 'DRAFT', traffic_percentage: 100 });
    expect(experiment.variants[1].algorithm_config.weights).toEqual({
      author_preference: 0.2,
      content_engagement: 0.2,
      recency: 0.5,
      semantic_similarity: 0.1,
    });
  });

  it('creates from flags with --json, filling default weights', async () => {
    const result = await cli([
      'experiment',
      'create',
      '--name',
      'flags',
      '--variant',
      'a:40',
      '--variant',
      'b:60:0.1,0.2,0.3,0.4',
      '--control',
      'a',
      '--min-sample-size',
      '10',
      '--metric',
      'user_satisfaction',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const experiment = JSON.parse(result.stdout);
    expect(experiment).toMatchObject({ name: 'flags', status: 'DRAFT', minimum_sample_size: 10, primary_metric: 'user_satisfaction' });
    expect(
      experiment.variants.map((v: { name: string; is_control: boolean; traffic_allocation: number }) => [
        v.name,
        v.is_control,
        v.traffic_allocation,
      ]),
    ).toEqual([
      ['a', true, 40],
      ['b', false, 60],
    ]);
    expect(experiment.variants[1].algorithm_config.weights).toEqual({
      author_preference: 0.1,
      content_engagement: 0.2,
      recency: 0.3,
      semantic_similarity: 0.4,
    });
  });

  it.each([
    [['--name', 'x'], /missing --variant .*stdin is not a terminal/],
    [['--variant', 'a:50', '--variant', 'b:50', '--control', 'a'], /missing --name/],
    [['--name', 'x', '--variant', 'a:50', '--variant', 'b:50'], /missing --control/],
    [['--name', 'x', '--variant', 'a:50', '--variant', 'b:40', '--control', 'a'], /variants: traffic allocations must add up to 100/],
    [['--name', 'x', '--variant', 'a:50', '--variant', 'b:50', '--control', 'c'], /--control: "c" is not one of/],
    [['--name', 'x', '--variant', 'a:50', '--variant', 'b:50:1,1', '--control', 'a'], /give four weights/],
    [
      ['--file', `${REPO_ROOT}test/fixtures/cli/experiment-bad-weights.json`],
      /variants\[1\]\.algorithm_config\.weights: variant "heavy": weights must add up to 1\.0/,
    ],
    [['--file', 'nope.json'], /--file nope\.json: cannot read the file \(ENOENT\)/],
    [['--file', `${REPO_ROOT}test/fixtures/cli/experiment-bad.yaml`], /--file .*experiment-bad\.yaml: not valid YAML/],
    [['--file', FIXTURE, '--name', 'x'], /either --file or the definition flags/],
  ])('exits 2 without prompting when stdin is not a terminal: %j', async (args, message) => {
    const result = await cli(['experiment', 'create', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });
});

describe('experiment start | pause | stop | list | status', () => {
  it('walks the life cycle and reports a refused move with the server message and request id (exit 3)', async () => {
    const id = await createFromFixture();
    const started = await cli(['experiment', 'start', String(id), '--json']);
    expect(started.code).toBe(0);
    expect(JSON.parse(started.stdout).status).toBe('ACTIVE');
    const again = await cli(['experiment', 'start', String(id)]);
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/^recsvc: server: 409 Conflict: Cannot start an experiment in state ACTIVE \(request_id [\w-]+\)\n$/);
    expect((await cli(['experiment', 'pause', String(id)])).stdout).toMatch(/PAUSED/);
    const listed = await cli(['experiment', 'list', '--status', 'PAUSED', '--json']);
    expect(JSON.parse(listed.stdout).map((e: { id: number }) => e.id)).toContain(id);
    const stopped = await cli(['experiment', 'stop', String(id)]);
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain(`experiment ${id} "recency boost": COMPLETED`);
    expect((await cli(['experiment', 'start', String(id)])).code).toBe(3);
  });

  it('lists experiments in plain aligned columns when stdout is a pipe (boxes only on a terminal)', async () => {
    const id = await createFromFixture();
    const result = await cli(['experiment', 'list']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^id\s+name\s+status\s+variants\s+traffic\s+started$/m);
    expect(result.stdout).toMatch(new RegExp(`^${id}\\s+recency boost\\s+DRAFT\\s+control 50%, recency 50%`, 'm'));
    expect(result.stdout).not.toMatch(DRAWING);
  });

  it.each([
    [['experiment', 'status', '999999'], /404 Resource not found.*request_id/],
    [['experiment', 'start', '999999'], /404/],
    [['experiment', 'analyze', '999999'], /404/],
    [['gates', 'check', '999999'], /404/],
    [['experiment', 'export', '999999'], /404/],
  ])('exits 3 on a server error: %j', async (args, message) => {
    const result = await cli(args);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('exits 3 naming the token problem on a bad token, and on a missing one', async () => {
    const bad = await cli(['experiment', 'list'], { RECSVC_TOKEN: 'nope' });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/401 Authentication required.*--token or RECSVC_TOKEN.*request_id/);
    const none = await runCli(['experiment', 'list', '--server', server.url]);
    expect(none.code).toBe(3);
  });

  it('exits 3 with one line when the server is down, and when it does not answer in --timeout', async () => {
    const down = await cli(['experiment', 'list', '--server', 'http://127.0.0.1:9']);
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(/^recsvc: cannot reach the server at http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\)/);
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const slow = await cli(['experiment', 'list', '--server', `http://127.0.0.1:${port}`, '--timeout', '0.5']);
    silent.close();
    expect(slow.code).toBe(3);
    expect(slow.stderr).toMatch(/did not answer within 0\.5s/);
    expect(slow.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('with users in the experiment', () => {
  let id: number;
  let skewedId: number;
  let assigned: Map<string, string>;

  beforeAll(async () => {
    id = await createFromFixture();
    expect((await cli(['experiment', 'start', String(id)])).code).toBe(0);
    assigned = await seedExperiment(server, { experimentId: id, variants: VARIANTS, users: 600, lift: { recency: 0.3 } });
    skewedId = await createFromFixture();
    expect((await cli(['experiment', 'start', String(skewedId)])).code).toBe(0);
    await seedExperiment(server, { experimentId: skewedId, variants: VARIANTS, users: 600, skewEvery: 2 });
  });

  it('status shows users per variant with share, allocation and bars', async () => {
    const json = await cli(['experiment', 'status', String(id), '--json']);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    const counts = [...assigned.values()].reduce((m, v) => m.set(v, (m.get(v) ?? 0) + 1), new Map<string, number>());
    expect(report.users_assigned).toBe(600);
    expect(report.variants.map((v: { name: string; users_assigned: number }) => [v.name, v.users_assigned])).toEqual([
      ['control', counts.get('control')],
      ['recency', counts.get('recency')],
    ]);
    const human = await cli(['experiment', 'status', String(id)]);
    expect(human.stdout).toContain('Users assigned: 600');
    expect(human.stdout).toMatch(/^control\s+\d+\s+\d+\.\d%\s+50%\s+[#.|]{20}$/m);
    expect(human.stdout).not.toMatch(DRAWING);
    expect(human.stdout).toContain('Sample ratio: OK');
  });

  it('status and gates shout about a sample ratio mismatch', async () => {
    const status = await cli(['experiment', 'status', String(skewedId)]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('SAMPLE RATIO MISMATCH');
    expect(status.stderr).toMatch(/warning: experiment \d+: sample ratio mismatch/);
    const gates = await cli(['gates', 'check', String(skewedId), '--allow-inconclusive']);
    expect(gates.code).toBe(1);
  });

  it('analyses identically online and offline on the exported file (plain and gzipped)', async () => {
    const file = join(dir, `exp-${id}.jsonl`);
    const gz = join(dir, `exp-${id}.jsonl.gz`);
    const exported = await cli(['experiment', 'export', String(id), '-o', file]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toMatch(/exported experiment \d+: 603 lines/);
    expect((await cli(['experiment', 'export', String(id), '-o', gz])).code).toBe(0);
    const lines = jsonLines(readFileSync(file, 'utf8'));
    expect(lines.filter((l) => l.type === 'user')).toHaveLength(600);
    for (const metric of ['click_through_rate', 'session_duration']) {
      const online = await cli(['experiment', 'analyze', String(id), '--metric', metric, '--json']);
      const offline = await cli(['experiment', 'analyze', '--file', file, '--metric', metric, '--json']);
      const offlineGz = await cli(['experiment', 'analyze', '--file', gz, '--metric', metric, '--json']);
      expect(online.code, online.stderr).toBe(0);
      expect(offline.code, offline.stderr).toBe(0);
      const result = JSON.parse(online.stdout);
      expect(result.sample_sizes).toEqual({ control: expect.any(Number), recency: expect.any(Number) });
      expect(result.metrics.recency.click_through_rate).toBeGreaterThan(0);
      expect(JSON.parse(offline.stdout)).toEqual(result);
      expect(JSON.parse(offlineGz.stdout)).toEqual(result);
    }
  });

  it('export streams to stdout too', async () => {
    const result = await cli(['experiment', 'export', String(id)]);
    expect(result.code).toBe(0);
    const lines = jsonLines(result.stdout);
    expect(lines[0]).toMatchObject({ type: 'experiment', id });
    const users = lines.filter((l) => l.type === 'user');
    expect(new Map(users.map((u) => [u.user_id, u.variant]))).toEqual(await byPseudonym(server, assigned));
  });

  it('analyze prints tables from the server', async () => {
    const result = await cli(['experiment', 'analyze', String(id)]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Experiment ${id} "recency boost" (ACTIVE)`);
    expect(result.stdout).toContain('click_through_rate (primary)');
    expect(result.stdout).not.toMatch(DRAWING);
  });

  it('gates check agrees online and offline, and exits 4 / 0 / 1 as decisions.md says', async () => {
    const file = join(dir, `gates-${id}.jsonl`);
    await cli(['experiment', 'export', String(id), '-o', file]);
    const online = await cli(['gates', 'check', String(id), '--json']);
    const offline = await cli(['gates', 'check', '--file', file, '--json']);
    // No recommendation traffic was served: latency and errors have no data, so inconclusive.
    expect(online.code).toBe(4);
    expect(offline.code).toBe(4);
    const strip = (text: string) => ({ ...JSON.parse(text), source: undefined });
    expect(strip(offline.stdout)).toEqual(strip(online.stdout));
    const allowed = await cli(['gates', 'check', String(id), '--allow-inconclusive', '--only', 'ctr']);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/^control \(control\)\s+[\d,]+\s+min_click_through_rate\s/m);
    expect(allowed.stdout).not.toMatch(DRAWING);
    const failing = await cli([
      'gates',
      'check',
      String(id),
      '--only',
      'ctr,satisfaction',
      '--min-ctr',
      '0.99',
      '--junit',
      join(dir, 'online.xml'),
    ]);
    expect(failing.code).toBe(1);
    const junit = parseJunit(readFileSync(join(dir, 'online.xml'), 'utf8'));
    expect(junit.suites[0]?.cases.map((c) => c.name)).toEqual([
      'control min_click_through_rate',
      'control min_user_satisfaction',
      'recency min_click_through_rate',
      'recency min_user_satisfaction',
    ]);
    expect(junit.totals.failures).toBe(2);
  });

  it('bucket reads the allocations from the server and agrees with every recorded assignment', async () => {
    const users = [...assigned.keys()];
    const run = await runCli(['bucket', '-', '--experiment', String(id), '--json'], { env: server.env, input: users.join('\n') });
    expect(run.code, run.stderr).toBe(0);
    const lines = jsonLines<{ user_id: string; variant: string }>(run.stdout);
    expect(new Map(lines.map((l) => [l.user_id, l.variant]))).toEqual(assigned);
  });
});

describe("bucket against the server's own assignment", () => {
  it('agrees for 2,000 users served recommendations', async () => {
    // The oldest running experiment enrols a user first: stop the others so this one gets everyone.
    const active = JSON.parse((await cli(['experiment', 'list', '--status', 'ACTIVE', '--json'])).stdout) as { id: number }[];
    for (const experiment of active) expect((await cli(['experiment', 'stop', String(experiment.id)])).code).toBe(0);
    const id = await createFromFixture();
    expect((await cli(['experiment', 'start', String(id)])).code).toBe(0);
    const probe = await fetch(`${server.url}/api/v1/recommendations?user_id=probe&limit=1`, {
      headers: { authorization: `Bearer ${server.token}` },
    });
    expect(probe.status).toBe(200);
    const users = Array.from({ length: 2000 }, (_, i) => `reader-${i}`);
    for (let i = 0; i < users.length; i += 50) {
      await Promise.all(
        users.slice(i, i + 50).map((user) =>
          fetch(`${server.url}/api/v1/recommendations?user_id=${user}&limit=1`, {
            headers: { authorization: `Bearer ${server.token}` },
          }).then((r) => r.arrayBuffer()),
        ),
      );
    }
    const exported = await cli(['experiment', 'export', String(id)]);
    const recorded = new Map(
      jsonLines(exported.stdout)
        .filter((l) => l.type === 'user')
        .map((l) => [l.user_id as string, l.variant as string]),
    );
    expect(recorded.size).toBeGreaterThan(0);
    // The export names users by pseudonym: bucket each user by their own id and compare under the pseudonym.
    const pseudonymOf = await pseudonymsOf(server);
    const rawOf = new Map(['probe', ...users].map((user) => [pseudonymOf(user), user]));
    expect([...recorded.keys()].every((key) => rawOf.has(key))).toBe(true);
    const run = await runCli(['bucket', '-', '--experiment', String(id), '--json'], {
      env: server.env,
      input: [...recorded.keys()].map((key) => rawOf.get(key)).join('\n'),
    });
    expect(run.code).toBe(0);
    const bucketed = jsonLines<{ user_id: string; variant: string }>(run.stdout).map((l) => [pseudonymOf(l.user_id), l.variant] as const);
    expect(new Map(bucketed)).toEqual(recorded);
  });
});
