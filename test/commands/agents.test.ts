/**
 * `recsvc agents list` and `recsvc agents run <name>` as child processes against a database
 * file: a run does its work in the database and prints its outcome and status, a failing
 * agent exits 1 with its error, an unknown name is a usage error listing the agents.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/exit-codes.js';
import { runCli, tempDir } from '../helpers/cli.js';

const BUILT_IN = [
  'cache_warmer',
  'candidate_pool_refresh',
  'database_maintenance',
  'experiment_gates',
  'oauth_maintenance',
  'trending_refresh',
];

interface RunJson {
  name: string;
  outcome: string;
  summary: string | null;
  details: Record<string, number>;
  error: string | null;
  agent: { name: string; status: string; last_execution: string | null; last_error: string | null; executions: number };
}

const dir = tempDir();

async function tokenRows(db: string): Promise<number> {
  const sqlite = new Database(db, { readonly: true });
  try {
    return (sqlite.prepare('SELECT count(*) AS n FROM tokens').get() as { n: number }).n;
  } finally {
    sqlite.close();
  }
}

describe('recsvc agents', () => {
  const db = join(dir, 'agents.db');

  beforeAll(async () => {
    // A token revoked 40 days ago: past database_maintenance's 30-day retention.
    const created = await runCli(['token', 'create', '--scopes', 'read', '--db', db, '--json']);
    expect(created.code, created.stderr).toBe(0);
    const sqlite = new Database(db);
    sqlite.prepare('UPDATE tokens SET revoked_at = ?').run(new Date(Date.now() - 40 * 86_400_000).toISOString());
    sqlite.close();
  });

  it('lists the agents serve schedules', async () => {
    const result = await runCli(['agents', 'list', '--db', db, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const names = (JSON.parse(result.stdout) as { name: string; interval_seconds: number }[]).map((a) => a.name);
    expect(names).toEqual(expect.arrayContaining(BUILT_IN));
  });

  it('runs one agent once against the database and prints what it did', async () => {
    expect(await tokenRows(db)).toBe(1);
    const result = await runCli(['agents', 'run', 'database_maintenance', '--db', db]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^database_maintenance: success in \d+ ms — purged 1 dead tokens/);
    expect(result.stdout).toMatch(/status: idle, last_execution \d{4}-\d{2}-\d{2}T/);
    expect(await tokenRows(db)).toBe(0);
    // It counts as the cluster's run: serving instances skip their next scheduled run.
    const sqlite = new Database(db, { readonly: true });
    try {
      expect(sqlite.prepare(`SELECT ran_by, run_kind FROM agent_runs WHERE name = 'database_maintenance'`).get()).toEqual({
        ran_by: expect.stringMatching(/ pid \d+$/) as unknown,
        run_kind: 'explicit',
      });
    } finally {
      sqlite.close();
    }
  });

  it('prints the outcome and status record as JSON', async () => {
    const result = await runCli(['agents', 'run', 'trending_refresh', '--db', db, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const run = JSON.parse(result.stdout) as RunJson;
    expect(run).toMatchObject({ name: 'trending_refresh', outcome: 'success', error: null, details: { trending_posts: 0 } });
    expect(run.agent).toMatchObject({ name: 'trending_refresh', status: 'idle', executions: 1, last_error: null });
  });

  it('exits 1 with the error and a failed status when the agent fails', async () => {
    const broken = join(dir, 'broken.db');
    expect((await runCli(['agents', 'list', '--db', broken])).code).toBe(0);
    const sqlite = new Database(broken);
    sqlite.pragma('foreign_keys = OFF');
    sqlite.exec('DROP TABLE tokens');
    sqlite.close();
    const result = await runCli(['agents', 'run', 'database_maintenance', '--db', broken, '--json']);
    expect(result.code).toBe(EXIT.gateFailed);
    const run = JSON.parse(result.stdout) as RunJson;
    expect(run).toMatchObject({ outcome: 'failed', error: 'no such table: tokens', summary: null });
    expect(run.agent).toMatchObject({ status: 'failed', last_error: 'no such table: tokens', executions: 1 });
    const text = await runCli(['agents', 'run', 'database_maintenance', '--db', broken]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('database_maintenance: failed');
    expect(text.stdout).toContain('error: no such table: tokens');
  });

  it('refuses an unknown agent with a usage error naming the agents', async () => {
    const result = await runCli(['agents', 'run', 'no_such_agent', '--db', db]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('unknown agent "no_such_agent"');
    for (const name of BUILT_IN) expect(result.stderr).toContain(name);
  });

  it('needs a name', async () => {
    const result = await runCli(['agents', 'run', '--db', db]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toMatch(/missing required argument 'name'/);
  });
});
