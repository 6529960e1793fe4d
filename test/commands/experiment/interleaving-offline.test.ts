/**
 * Reading an interleaving experiment by its method, online and offline: `recsvc experiment
 * status|analyze <id>` against the listening server, and `analyze --file <export>` (the built
 * binary, a child process), give exactly the numbers of the server's `/analysis`, with the
 * experiment's recorded method (sequential) and with `--method fixed`. The
 * experiment is run through the HTTP API: real interleaved recommendations, real clicks
 * posted to the events API, and the export streamed from `/export`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLines, createJsonlExportParser } from '../../../src/experiments/io/export-format.js';
import { withInterleavingTables } from '../../../server/experiments/interleaving/interleaving.tables.js';
import { makeStatus } from '../../helpers/mastodon-fixtures.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { runCli } from '../../helpers/cli.js';
import { experimentBody } from '../../server/experiments/experiment-bodies.js';

const BASE = '/api/v1/analytics/experiments';
const USERS = Array.from({ length: 24 }, (_, i) => `off${String(i).padStart(2, '0')}`);

let t: TestApp;
let admin: Record<string, string>;
let id: number;
let dir: string;
let exportText: string;
let exportFile: string;

/** The highest interleaved-impression id so far (0 when none). */
async function lastImpressionId(): Promise<number> {
  const row = await withInterleavingTables(t.database.db)
    .selectFrom('interleaving_impressions')
    .select((eb) => eb.fn.max('id').as('last'))
    .executeTakeFirst();
  return Number(row?.last ?? 0);
}

/** Post id → team (variant name) of the interleaved impressions stored after `afterId`: one user's list (ids may be pseudonymised). */
async function servedTeams(afterId: number): Promise<Map<string, string>> {
  const rows = await withInterleavingTables(t.database.db)
    .selectFrom('interleaving_impressions')
    .select(['post_id', 'team'])
    .where('experiment_id', '=', id)
    .where('id', '>', afterId)
    .execute();
  return new Map(rows.map((row) => [row.post_id, row.team]));
}

async function nextMillisecond(): Promise<void> {
  const start = Date.now();
  while (Date.now() <= start) await new Promise((resolve) => setTimeout(resolve, 1));
}

async function analysis(query = ''): Promise<unknown> {
  const res = await t.app.inject({ method: 'GET', url: `${BASE}/${id}/analysis${query}`, headers: admin });
  expect(res.statusCode).toBe(200);
  return res.json().data;
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.adminHeaders();
  const statuses = Array.from({ length: 20 }, (_, i) =>
    makeStatus({ n: i + 1, author: `author${1 + (i % 4)}`, ageHours: 1 + i, favourites: i % 5 }),
  );
  expect((await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: admin, payload: { statuses } })).statusCode).toBe(201);
  const created = await t.app.inject({
    method: 'POST',
    url: BASE,
    headers: admin,
    payload: experimentBody({ type: 'interleaving', minimum_sample_size: 5 }),
  });
  expect(created.statusCode).toBe(201);
  id = created.json().data.id;
  expect(created.json().data.analysis_method).toBe('sequential');
  expect((await t.app.inject({ method: 'POST', url: `${BASE}/${id}/start`, headers: admin })).statusCode).toBe(200);
  const events: object[] = [];
  for (const [u, user] of USERS.entries()) {
    const before = await lastImpressionId();
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/recommendations?user_id=${user}&limit=8`,
      headers: await t.userHeaders(user),
    });
    expect(res.statusCode).toBe(200);
    const teams = await servedTeams(before);
    const mine = res.json<{ id: string }[]>().map((post) => ({ postId: post.id, team: teams.get(post.id) }));
    expect(mine.every((item) => item.team === 'treatment' || item.team === 'control')).toBe(true);
    // A deterministic pattern: most users click more of the treatment's posts, some the control's, some tie, some never click.
    const wants = { treatment: [2, 1, 3, 0, 1, 0][u % 6] ?? 0, control: [0, 1, 1, 2, 0, 0][u % 6] ?? 0 };
    for (const team of ['treatment', 'control'] as const) {
      for (const item of mine.filter((i) => i.team === team).slice(0, wants[team]))
        events.push({ type: 'click', user_id: user, post_id: item.postId });
    }
  }
  await nextMillisecond();
  const posted = await t.app.inject({ method: 'POST', url: '/api/v1/analytics/events', headers: admin, payload: { events } });
  expect(posted.statusCode).toBe(201);
  const exported = await t.app.inject({ method: 'GET', url: `${BASE}/${id}/export`, headers: admin });
  expect(exported.statusCode).toBe(200);
  exportText = exported.body;
  dir = mkdtempSync(join(tmpdir(), 'recsvc-interleaving-offline-'));
  exportFile = join(dir, `experiment-${id}.jsonl`);
  writeFileSync(exportFile, exportText);
});
afterAll(async () => {
  await t.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the export of an interleaving experiment', () => {
  it('carries one interleaving line per user in the analysis, with team impressions and credited clicks', async () => {
    const online = (await analysis()) as { users: number; teams: { name: string; credited_clicks: number; impressions: number }[] };
    const lines = exportText
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const interleaving = lines.filter((line) => line.type === 'interleaving');
    expect(online.users).toBe(USERS.length);
    expect(interleaving).toHaveLength(online.users);
    expect(Object.keys(interleaving[0] ?? {})).toEqual(['type', 'user_id', 'team_impressions', 'credited_clicks']);
    const sum = (key: 'team_impressions' | 'credited_clicks', team: string) =>
      interleaving.reduce((total, line) => total + ((line[key] as Record<string, number>)[team] ?? 0), 0);
    for (const team of online.teams) {
      expect(sum('team_impressions', team.name)).toBe(team.impressions);
      expect(sum('credited_clicks', team.name)).toBe(team.credited_clicks);
    }
    expect(online.teams.every((team) => team.credited_clicks > 0)).toBe(true);
    const parsed = await parseLines(
      (async function* () {
        yield* exportText.split('\n');
      })(),
      createJsonlExportParser('export.jsonl'),
    );
    expect(parsed.interleaving).toHaveLength(online.users);
  });
});

describe('recsvc experiment status and analyze against the server', () => {
  /** The CLI's flags for the test app, listening on a port the OS picks. */
  async function serverFlags(): Promise<string[]> {
    if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    return ['--server', `http://127.0.0.1:${port}`, '--token', (admin.authorization as string).slice('Bearer '.length)];
  }

  it('read the recorded method (sequential), and --method fixed for the planned final read', async () => {
    const flags = await serverFlags();
    const [status, analyzed, fixed] = await Promise.all([
      runCli(['experiment', 'status', String(id), '--json', ...flags]),
      runCli(['experiment', 'analyze', String(id), '--json', ...flags]),
      runCli(['experiment', 'analyze', String(id), '--method', 'fixed', '--json', ...flags]),
    ]);
    for (const result of [status, analyzed, fixed]) expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual(await analysis());
    expect(JSON.parse(analyzed.stdout)).toEqual(await analysis());
    expect(JSON.parse(fixed.stdout)).toEqual(await analysis('?method=fixed'));
    expect(JSON.parse(fixed.stdout).p_value).not.toBe(JSON.parse(analyzed.stdout).p_value);
  });

  it('prints the method and the confidence sequence in the terminal', async () => {
    const result = await runCli(['experiment', 'status', String(id), ...(await serverFlags())]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Method: sequential (always-valid');
    expect(result.stdout).toMatch(/\(95% confidence sequence\), p = [0-9.e-]+ \(always-valid, vs 50%\)/);
  });
});

describe('recsvc experiment analyze --file on the export', () => {
  it('gives the server’s numbers with the recorded method (sequential)', async () => {
    const result = await runCli(['experiment', 'analyze', '--file', exportFile, '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const online = await analysis();
    expect(online).toMatchObject({ analysis_method: 'sequential', users_with_preference: expect.any(Number) });
    expect(JSON.parse(result.stdout)).toEqual(online);
  });

  it('gives the server’s numbers for the planned final read (--method fixed)', async () => {
    const result = await runCli(['experiment', 'analyze', '--file', exportFile, '--method', 'fixed', '--json']);
    expect(result.code).toBe(0);
    const online = await analysis('?method=fixed');
    expect(online).toMatchObject({ analysis_method: 'fixed', method: 'team_draft_sign_test' });
    expect(JSON.parse(result.stdout)).toEqual(online);
  });

  it('prints the preference-share report in the terminal', async () => {
    const result = await runCli(['experiment', 'analyze', '--file', exportFile]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Experiment ${id} "Recency boost" (from ${exportFile}): interleaving (team draft)`);
    expect(result.stdout).toContain('Method: sequential');
    expect(result.stdout).toContain('confidence sequence');
  });

  it('refuses a damaged interleaving line, naming file, line and field', async () => {
    const lines = exportText.trim().split('\n');
    const at = lines.findIndex((line) => line.includes('"type":"interleaving"'));
    lines[at] = (lines[at] as string).replace('"credited_clicks":{', '"credited_clicks":{"nobody":1,');
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, `${lines.join('\n')}\n`);
    const result = await runCli(['experiment', 'analyze', '--file', bad]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${bad}:${at + 1}:`);
    expect(result.stderr).toContain('credited_clicks: unknown variant "nobody"');
  });
});
