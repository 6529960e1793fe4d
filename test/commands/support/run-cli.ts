/**
 * Runs the built binary (`node bin/recsvc ...`, against dist/) as a child process and
 * collects its exit code and output. `npm test` builds first.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
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

/** Runs `recsvc ...args`; env has RECSVC_SERVER/RECSVC_TOKEN/colour cleared unless given. */
export function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { ...process.env, RECSVC_SERVER: undefined, RECSVC_TOKEN: undefined, FORCE_COLOR: undefined, ...options.env };
    for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? REPO_ROOT, env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** Asserts-free helper: parses stdout as JSON Lines. */
export function jsonLines<T = Record<string, unknown>>(text: string): T[] {
  return text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as T);
}
