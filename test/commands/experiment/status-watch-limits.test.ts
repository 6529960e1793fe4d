/**
 * `experiment status --watch` against a real server with its rate limits on (scaled to a tenth:
 * 2 analytics requests a minute per token), as a child process. Each refresh makes two analytics
 * requests; at the old default (5 s) a watch made 24 a minute against the spec's 20 and, once
 * refused, failed on the first refresh or was refused at every refresh after.
 * - the default interval stays within the spec's analytics windows indefinitely;
 * - when the window's requests are spent, the next refresh waits for its reset (and says so);
 * - refused (429), it waits the server's Retry-After, says so, and sends nothing meanwhile.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMIT_POLICY } from '../../../src/rate-limit/policy.js';
import { DEFAULT_WATCH_INTERVAL_SECONDS, REQUESTS_PER_REFRESH } from '../../../commands/experiment/status-watch.js';
import { BIN, REPO_ROOT, runCli, startServe, tempDir, type ServeProcess } from '../../helpers/cli.js';
import { experimentBody } from '../../server/experiments/experiment-bodies.js';

const EXPERIMENTS = '/api/v1/analytics/experiments';
let dir: string;
let serve: ServeProcess;
let id: number;

async function mint(dbPath: string): Promise<string> {
  const minted = await runCli(['token', 'create', '--scopes', 'read,write,admin', '--json', '--db', dbPath]);
  if (minted.code !== 0) throw new Error(`token create failed: ${minted.stderr}`);
  return (JSON.parse(minted.stdout) as { token: string }).token;
}

const tokens: string[] = [];

beforeAll(async () => {
  dir = tempDir('recsvc-watch-limits-');
  const dbPath = join(dir, 'recsvc.db');
  // One token to create the experiment, one per test: each has its own analytics windows.
  for (let i = 0; i < 3; i++) tokens.push(await mint(dbPath));
  serve = await startServe(['--db', dbPath, '--log-level', 'info'], { RECSVC_RATE_LIMIT_SCALE: '0.1' });
  const created = await fetch(`${serve.baseUrl}${EXPERIMENTS}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens[0]}`, 'content-type': 'application/json' },
    body: JSON.stringify(experimentBody()),
  });
  expect(created.status).toBe(201);
  id = ((await created.json()) as { data: { id: number } }).data.id;
}, 60_000);
afterAll(async () => {
  await serve?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** `recsvc experiment status <id> --watch ...flags` with `token`, left running. */
function watch(token: string, flags: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, RECSVC_SERVER: serve.baseUrl, RECSVC_TOKEN: token, NO_COLOR: '1' };
  delete env.FORCE_COLOR;
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [BIN, 'experiment', 'status', String(id), '--watch', ...flags], {
    cwd: REPO_ROOT,
    env,
    stdio: 'pipe',
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    out: () => out,
    err: () => err,
    exited,
    running: () => child.exitCode === null,
    async waitFor(test: () => boolean): Promise<void> {
      const start = Date.now();
      while (!test()) {
        if (Date.now() - start > 20_000 || child.exitCode !== null) throw new Error(`gave up waiting; stdout:\n${out}\nstderr:\n${err}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    interrupt: () => child.kill('SIGINT'),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The windows are aligned to the clock's minutes: start a test at least 12 s before the next one begins. */
async function clearOfMinuteBoundary(): Promise<void> {
  const second = new Date().getUTCSeconds();
  if (second > 45) await sleep((61 - second) * 1000);
}

const frames = (out: string): string[] => out.split('\n\n').filter((frame) => frame.startsWith('Experiment '));

describe('experiment status --watch under rate limits', () => {
  it('refreshes by default no faster than the spec’s analytics windows allow, with a tenth of each to spare', () => {
    for (const window of DEFAULT_RATE_LIMIT_POLICY.groups.analytics) {
      const requests = (window.seconds / DEFAULT_WATCH_INTERVAL_SECONDS) * REQUESTS_PER_REFRESH;
      expect(requests).toBeLessThanOrEqual(window.max * 0.9);
    }
    expect(DEFAULT_WATCH_INTERVAL_SECONDS).toBe(40);
  });

  it('waits for the window to reset when its requests are spent, and says so, instead of being refused', async () => {
    await clearOfMinuteBoundary();
    const run = watch(tokens[1]!, ['--interval', '0.2']);
    await run.waitFor(() => frames(run.out()).length >= 1);
    const first = frames(run.out())[0]!;
    const match = /next refresh in ([\d.]+) s: 0 of 2 requests left until (\d\d:\d\d:\d\d) UTC \(rate limit\)/.exec(first);
    expect(match, first).not.toBeNull();
    const untilReset = 60 - new Date().getUTCSeconds();
    expect(Number(match![1])).toBeGreaterThan(untilReset - 3);
    expect(Number(match![1])).toBeLessThanOrEqual(untilReset + 2);
    expect(match![2]!.endsWith(':00')).toBe(true);
    // At --interval 0.2 it would have refreshed about ten times by now; it waits instead.
    await sleep(2_000);
    expect(frames(run.out())).toHaveLength(1);
    expect(run.running()).toBe(true);
    expect(`${run.out()}${run.err()}`).not.toMatch(/429|Rate limit exceeded/);
    run.interrupt();
    expect(await run.exited).toBe(130);
  }, 60_000);

  it('refused with 429, waits the server’s Retry-After, shows it and sends nothing meanwhile', async () => {
    await clearOfMinuteBoundary();
    const token = tokens[2]!;
    const get = () => fetch(`${serve.baseUrl}${EXPERIMENTS}/${id}/status`, { headers: { authorization: `Bearer ${token}` } });
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(200);
    const refused = await get();
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(10);

    const run = watch(token, ['--interval', '0.2', '--json']);
    await run.waitFor(() => /rate limited/.test(run.err()));
    const line = /recsvc: warning: rate limited \(429\): next refresh in (\d+) s, as the server asked \(Retry-After\)/.exec(run.err());
    expect(line, run.err()).not.toBeNull();
    expect(Number(line![1])).toBeLessThanOrEqual(retryAfter);
    expect(Number(line![1])).toBeGreaterThan(retryAfter - 3);
    // Not ended (the old watch exited 3 on a first refresh refused), and not hammering: one attempt only.
    await sleep(2_000);
    expect(run.running()).toBe(true);
    expect(run.err().match(/rate limited/g)).toHaveLength(1);
    expect(run.out()).toBe('');
    run.interrupt();
    expect(await run.exited).toBe(130);
  }, 60_000);
});
