/**
 * A real `recsvc serve` child process on 127.0.0.1 with a port the OS picks (--port 0;
 * the address is read from the server's "Server listening at" log line), a temp
 * database, rate limits off, and an admin token minted with `recsvc token create`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, runCli } from '../commands/support/run-cli.js';

export interface ServerProcess {
  url: string;
  token: string;
  dbPath: string;
  dir: string;
  /** Env for CLI runs against this server. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Mints an admin token on a fresh database, then starts the server and waits for its address. */
export async function startServerProcess(options: { demo?: boolean } = {}): Promise<ServerProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'recsvc-server-'));
  const dbPath = join(dir, 'recsvc.db');
  const minted = await runCli(['token', 'create', '--scopes', 'read,write,admin', '--json', '--db', dbPath]);
  if (minted.code !== 0) throw new Error(`token create failed: ${minted.stderr}`);
  const token = (JSON.parse(minted.stdout) as { token: string }).token;
  const args = [BIN, 'serve', '--port', '0', '--host', '127.0.0.1', '--db', dbPath, '--rate-limit', 'off', '--log-level', 'info'];
  if (options.demo) args.push('--demo');
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, RECSVC_SERVER: undefined, RECSVC_TOKEN: undefined } as NodeJS.ProcessEnv });
  const url = await listenAddress(child);
  return {
    url,
    token,
    dbPath,
    dir,
    env: { RECSVC_SERVER: url, RECSVC_TOKEN: token },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function listenAddress(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), 20_000);
    const onData = (chunk: Buffer): void => {
      log += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve(match[1] as string);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${log}`));
    });
  });
}
