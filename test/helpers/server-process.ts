/**
 * A `recsvc serve` child process ready for CLI tests: a temp database, rate limits
 * off, and an admin token minted with `recsvc token create`.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startServe, tempDir } from './cli.js';

export interface ServerProcess {
  url: string;
  token: string;
  dbPath: string;
  dir: string;
  /** Env for CLI runs against this server. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Mints an admin token on a fresh database, then starts the server. */
export async function startServerProcess(options: { demo?: boolean } = {}): Promise<ServerProcess> {
  const dir = tempDir('recsvc-server-');
  const dbPath = join(dir, 'recsvc.db');
  const minted = await runCli(['token', 'create', '--scopes', 'read,write,admin', '--json', '--db', dbPath]);
  if (minted.code !== 0) throw new Error(`token create failed: ${minted.stderr}`);
  const token = (JSON.parse(minted.stdout) as { token: string }).token;
  const server = await startServe(['--db', dbPath, '--rate-limit', 'off', '--log-level', 'info', ...(options.demo ? ['--demo'] : [])]);
  return {
    url: server.baseUrl,
    token,
    dbPath,
    dir,
    env: { RECSVC_SERVER: server.baseUrl, RECSVC_TOKEN: token },
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
