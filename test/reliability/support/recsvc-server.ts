/**
 * `recsvc serve` (the built binary) as a quiet child process for the reliability
 * suite: warn-level logs (a load test must not pay for a log line per request, nor
 * collect them), a port picked beforehand, readiness by polling /health, the pid
 * for /proc readings, and the last output kept for failure messages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { BIN, runCli, tempDir } from '../../helpers/cli.js';
import { sleep } from './suite-settings.js';

export interface RecsvcServer {
  child: ChildProcess;
  pid: number;
  port: number;
  baseUrl: string;
  dbPath: string;
  /** The last 20,000 characters the server wrote (stdout and stderr). */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) once the process is gone. */
  readonly exited: Promise<number | null>;
  /** Sends a signal (SIGTERM by default) unless the process is gone, and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  /** SQLite file; a fresh temp file by default. */
  dbPath?: string;
  /** Extra `serve` flags, e.g. ['--demo'] or ['--rate-limit', 'off']. */
  args?: string[];
  /** Extra environment, e.g. RECSVC_RATE_LIMIT_SCALE. */
  env?: Record<string, string>;
  /**
   * Keep load shedding (503 on event-loop delay) on; off by default, because on a
   * shared 2-core machine a starved server would shed the requests a test is about.
   */
  shedding?: boolean;
  readyTimeoutMs?: number;
}

const OUTPUT_KEPT = 20_000;

/** Servers still running: killed when the test process exits, so a failed test leaves none behind. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** SIGKILLs every server this test process started that is still running (for afterAll). */
export async function killStartedServers(): Promise<void> {
  const exits = [...running].map((child) => new Promise((resolve) => child.once('exit', resolve)));
  for (const child of running) child.kill('SIGKILL');
  await Promise.all(exits);
}

/** A fresh database path in its own temp folder. */
export function freshDbPath(name = 'reliability.db'): string {
  return join(tempDir('recsvc-reliability-'), name);
}

/** Mints a token on the server host with `recsvc token create`; creates and migrates the file if needed. */
export async function mintToken(
  dbPath: string,
  options: { scopes: string; user?: string; tier?: 'premium' } = { scopes: 'read,write,admin' },
): Promise<string> {
  const args = ['token', 'create', '--scopes', options.scopes, '--db', dbPath, '--json', '--expires', 'never'];
  if (options.user) args.push('--user', options.user);
  if (options.tier) args.push('--tier', options.tier);
  const minted = await runCli(args);
  if (minted.code !== 0) throw new Error(`token create failed (${minted.code}): ${minted.stderr}`);
  return (JSON.parse(minted.stdout) as { token: string }).token;
}

/** A port the OS reports free on 127.0.0.1 (closed again before the server binds it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  // Our own RECSVC_* settings (a developer's shell) must not change the server under test.
  for (const key of Object.keys(env)) if (key.startsWith('RECSVC_')) delete env[key];
  delete env.FORCE_COLOR;
  return { ...env, ...extra };
}

/** Starts `recsvc serve` on 127.0.0.1 and resolves once /health answers 200. */
export async function startRecsvc(options: StartOptions = {}): Promise<RecsvcServer> {
  const dbPath = options.dbPath ?? freshDbPath();
  const port = await freePort();
  const args = [
    BIN,
    'serve',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--db',
    dbPath,
    '--log-level',
    'warn',
    ...(options.args ?? []),
  ];
  const env = { ...(options.shedding ? {} : { RECSVC_LOAD_SHEDDING: 'off' }), ...options.env };
  const child = spawn(process.execPath, args, { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      exitCode = code;
      resolve(code);
    }),
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (exitCode !== undefined) throw new Error(`recsvc serve exited with ${exitCode} before answering:\n${output}`);
    const ok = await fetch(`${baseUrl}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`recsvc serve did not answer /health in time:\n${output}`);
    }
    await sleep(50);
  }
  return {
    child,
    pid: child.pid!,
    port,
    baseUrl,
    dbPath,
    output: () => output,
    exited,
    stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (exitCode === undefined) child.kill(signal);
      return exited;
    },
  };
}
