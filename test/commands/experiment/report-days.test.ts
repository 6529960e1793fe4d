/**
 * `recsvc experiment report <id>` against a live server draws the experiment's history from
 * ONE export (issue 13): users enrolled and served over three days (written to the server's
 * SQLite file with past times, as the serving path records them) come back in the export with
 * `assigned_at` and per-day counts, so every series of the report has a point per day.
 */
import Database from 'better-sqlite3';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAssigner } from '../../../src/experiments/assignment.js';
import { REPO_ROOT, runCli, tempDir } from '../../helpers/cli.js';
import { startServerProcess, type ServerProcess } from '../../helpers/server-process.js';

const DAY = 86_400_000;
const USERS = 60;
const dir = tempDir('recsvc-report-days-');
let server: ServerProcess;
let id: number;

/** Enrols user i on day i % 3 (two days ago, yesterday, today) and serves them 2 + i % 4 posts then. */
function seedOverThreeDays(nowMs: number): void {
  const assign = createAssigner(id, [
    { name: 'control', traffic_allocation: 50 },
    { name: 'recency', traffic_allocation: 50 },
  ]);
  const db = new Database(server.dbPath);
  db.pragma('busy_timeout = 5000');
  const assignment = db.prepare('INSERT INTO experiment_assignments (experiment_id, user_id, variant, assigned_at_ms) VALUES (?, ?, ?, ?)');
  const impression = db.prepare(
    'INSERT INTO experiment_impressions (experiment_id, variant, user_id, post_id, score, reason_code, served_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  db.transaction(() => {
    for (let i = 0; i < USERS; i++) {
      const user = `day-user-${String(i).padStart(3, '0')}`;
      const variant = assign(user).variant?.name as string;
      const at = nowMs - (2 - (i % 3)) * DAY - 60_000;
      assignment.run(id, user, variant, at);
      for (let k = 0; k < 2 + (i % 4); k++) impression.run(id, variant, user, `p${k}`, 0.5, 'HIGH_ENGAGEMENT', at + k);
    }
  })();
  db.close();
}

beforeAll(async () => {
  server = await startServerProcess();
  const created = await runCli(['experiment', 'create', '--file', `${REPO_ROOT}test/fixtures/cli/experiment.json`], { env: server.env });
  expect(created.code, created.stderr).toBe(0);
  id = Number(created.stdout.trim());
  const started = await runCli(['experiment', 'start', String(id)], { env: server.env });
  expect(started.code, started.stderr).toBe(0);
  seedOverThreeDays(Date.now());
}, 60_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Per series of a chart section: how many points it draws. */
function pointsPerSeries(section: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of section.matchAll(/<g class="series" data-series="([^"]+)">(.*?)<\/g>/g))
    out[m[1] as string] = (m[2] as string).match(/<circle class="point"/g)?.length ?? 0;
  return out;
}

describe('experiment report <id> from a server whose export carries time', () => {
  it('exports assigned_at and days, and the report draws a point per day in every series', async () => {
    const exported = await runCli(['experiment', 'export', String(id), '--output', join(dir, 'export.jsonl')], { env: server.env });
    expect(exported.code, exported.stderr).toBe(0);
    const lines = readFileSync(join(dir, 'export.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(Date.parse(lines[0]?.exported_at as string)).toBeGreaterThan(0);
    const users = lines.filter((l) => l.type === 'user');
    expect(users).toHaveLength(USERS);
    for (const user of users) {
      expect(user.assigned_at).toEqual(expect.any(String));
      const days = user.days as Record<string, { impressions?: number }>;
      expect(Object.values(days).reduce((sum, d) => sum + (d.impressions ?? 0), 0)).toBe(user.impressions);
    }

    const out = join(dir, 'report.html');
    const result = await runCli(['experiment', 'report', String(id), '-o', out], { env: server.env });
    expect(result.code, result.stderr).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('Daily points from the export');
    const usersSection = html.slice(html.indexOf('<section id="users">'), html.indexOf('<section id="gates">'));
    expect(pointsPerSeries(usersSection)).toEqual({ control: 3, recency: 3 });
    const ctr = /data-metric="click_through_rate">(.*?)<\/section>/s.exec(html)?.[1] ?? '';
    const ctrPoints = Object.values(pointsPerSeries(ctr));
    expect(ctrPoints.length).toBeGreaterThan(0);
    for (const n of ctrPoints) expect(n).toBeGreaterThan(1);
  }, 60_000);
});
