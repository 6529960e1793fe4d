/**
 * The built `recsvc` binary as a child process (`npm test` builds first): one-shot
 * commands with `runCli`, and `recsvc serve` on a port the OS picks with `startServe`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = `${REPO_ROOT}bin/recsvc`;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  input?: string | Buffer;
  env?: Record<string, string | undefined>;
  cwd?: string;
}

/** The child's environment: no server/token/colour settings leak in from ours unless given. */
function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = {
    ...process.env,
    RECSVC_SERVER: undefined,
    RECSVC_TOKEN: undefined,
    FORCE_COLOR: undefined,
    NO_COLOR: '1',
    ...extra,
  };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return env;
}

/** Runs `recsvc ...args` to completion. */
export function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: childEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** Parses stdout as JSON Lines. */
export function jsonLines<T = Record<string, unknown>>(text: string): T[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T);
}

/** A fresh temporary directory. */
export function tempDir(prefix = 'recsvc-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface ServeProcess {
  child: ChildProcess;
  baseUrl: string;
  /** Everything the server logged so far. */
  logs(): string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `recsvc serve --port 0 ...args` and resolves with the address from its
 * "Server listening at" log line (so `--log-level` must be info or lower).
 */
export async function startServe(
  args: string[],
  env: Record<string, string | undefined> = {},
  startTimeoutMs = 20_000,
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--host', '127.0.0.1', ...args], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logs = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${logs}`)), startTimeoutMs);
    const collect = (chunk: Buffer): void => {
      logs += chunk.toString();
      const match = /Server listening at (https?:\/\/127\.0\.0\.1:\d+)/.exec(logs);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${logs}`));
    });
  });
  return {
    child,
    baseUrl,
    logs: () => logs,
    stop: (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
