/**
 * Another process writing the same SQLite file (a second recsvc, `recsvc import`): the
 * service's write transactions wait for its commits instead of failing. Before
 * sqlite-immediate.ts, a batch of clicks (read the impressions, then write) answered 500
 * "database is locked" whenever the other process held the write lock or had committed since
 * the batch's first read: a deferred transaction cannot upgrade to writing then, and SQLite
 * does not wait for it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../../helpers/cli.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The other process: holds the write lock 5 ms per transaction (an insert of a session event),
 * then leaves it free 5 ms, until killed. It prints `ready` once it has committed once.
 */
const WRITER = `
const Database = require('better-sqlite3');
const db = new Database(process.env.DB_PATH);
db.pragma('busy_timeout = 5000');
const insert = db.prepare("INSERT INTO analytics_events (type, user_id, session_id, occurred_at_ms, received_at_ms) VALUES ('session_start', 'writer', ?, ?, ?)");
const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
for (let n = 0; ; n++) {
  db.exec('BEGIN IMMEDIATE');
  insert.run('s' + n, Date.now(), Date.now());
  pause(5);
  db.exec('COMMIT');
  if (n === 0) process.stdout.write('ready\\n');
  pause(5);
}
`;

let t: TestApp | undefined;
let writer: ChildProcess | undefined;
let dir: string | undefined;

afterEach(async () => {
  if (writer && writer.exitCode === null) {
    const exited = new Promise((resolve) => writer?.once('exit', resolve));
    writer.kill('SIGKILL');
    await exited;
  }
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function startWriter(dbPath: string, script = WRITER, env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', script], { cwd: REPO_ROOT, env: { ...process.env, ...env, DB_PATH: dbPath } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`the writer exited with ${code}: ${stderr}`)));
  });
}

/** The other process: takes the write lock, prints `ready`, holds it HOLD_MS, commits and exits. */
const HOLDER = `
const Database = require('better-sqlite3');
const db = new Database(process.env.DB_PATH);
db.exec('BEGIN IMMEDIATE');
process.stdout.write('ready\\n');
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(process.env.HOLD_MS));
db.exec('COMMIT');
`;

describe('SQLite: another process writes the same file', () => {
  it('answers every batch of clicks 201 while the other process commits every 10 ms', async () => {
    dir = tempDir('recsvc-two-writers-');
    const dbPath = join(dir, 'recsvc.db');
    t = await createTestApp({ dbPath });
    const posts = Array.from({ length: 40 }, (_, i) => `p${i}`);
    await t.database.db
      .insertInto('experiment_impressions')
      .values(
        posts.map((post_id) => ({
          experiment_id: 1,
          variant: 'control',
          user_id: 'alice',
          post_id,
          score: 0.5,
          reason_code: 'HIGH_ENGAGEMENT',
          served_at_ms: Date.now(),
        })),
      )
      .execute();
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const headers = { ...(await t.userHeaders('alice')), 'content-type': 'application/json' };
    writer = await startWriter(dbPath);

    const failures: string[] = [];
    for (const post of posts) {
      const response = await fetch(`${address}/api/v1/analytics/events`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ events: [{ type: 'click', user_id: 'alice', post_id: post, session_id: 's1' }] }),
      });
      if (response.status !== 201) failures.push(`${post}: ${response.status} ${(await response.text()).slice(0, 80)}`);
    }
    expect(failures).toEqual([]);
    // Every click claimed its impression: each was judged on what the other process had committed.
    const clicks = await t.database.db
      .selectFrom('analytics_events')
      .select(['post_id', 'rejected_reason'])
      .where('type', '=', 'click')
      .execute();
    expect(clicks).toHaveLength(posts.length);
    expect(clicks.every((row) => row.rejected_reason === null)).toBe(true);
    // And the other process kept writing meanwhile.
    const theirs = await t.database.db
      .selectFrom('analytics_events')
      .select(({ fn }) => fn.countAll<number>().as('n'))
      .where('user_id', '=', 'writer')
      .executeTakeFirstOrThrow();
    expect(Number(theirs.n)).toBeGreaterThan(1);
  });

  it('answers 503 with Retry-After when the other process holds the write lock past the busy timeout, and stores nothing', async () => {
    dir = tempDir('recsvc-lock-held-');
    const dbPath = join(dir, 'recsvc.db');
    t = await createTestApp({ dbPath });
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const headers = { ...(await t.userHeaders('alice')), 'content-type': 'application/json' };
    const body = JSON.stringify({ events: [{ type: 'session_start', user_id: 'alice', session_id: 's-held' }] });
    const post = () => fetch(`${address}/api/v1/analytics/events`, { method: 'POST', headers, body });
    // Held 8 s: longer than the busy timeout (5 s) a write waits for it.
    writer = await startWriter(dbPath, HOLDER, { HOLD_MS: '8000' });
    const refused = await post();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    const error = (await refused.json()) as Record<string, unknown>;
    expect(error).toMatchObject({ error: 'Service unavailable', status_code: 503 });
    expect(String(error.message)).toContain('another process holds its write lock');
    expect(error.request_id).toBe(refused.headers.get('x-request-id'));
    const sessions = () => t!.database.db.selectFrom('analytics_events').select('session_id').where('session_id', '=', 's-held').execute();
    expect(await sessions()).toEqual([]);
    // Once the other process has committed, the same request goes through.
    await new Promise((resolve) => writer!.once('exit', resolve));
    expect((await post()).status).toBe(201);
    expect(await sessions()).toHaveLength(1);
  }, 30_000);
});
