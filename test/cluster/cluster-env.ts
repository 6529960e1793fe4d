/**
 * Several `recsvc serve` processes on one PostgreSQL schema and one Redis, as behind a load
 * balancer. The Redis is a private `redis-server` started for the test file (on a free port,
 * no persistence), so a test may kill it without touching the machine's shared one. Without
 * PostgreSQL or the redis-server binary the suite is skipped with one line saying why.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { startServe, type ServeProcess } from '../helpers/cli.js';
import { postgresUnavailable } from '../postgres/postgres-test-database.js';

const REDIS_SERVER = process.env.RECSVC_TEST_REDIS_SERVER ?? 'redis-server';

/** Why the cluster suite cannot run here (printed once), or undefined. */
export async function clusterUnavailable(): Promise<string | undefined> {
  const postgres = await postgresUnavailable();
  if (postgres !== undefined) return postgres;
  const probe = spawnSync(REDIS_SERVER, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    const reason = `no ${REDIS_SERVER} binary to start a private Redis (apt-get install redis-server, or set RECSVC_TEST_REDIS_SERVER)`;
    console.warn(`Cluster suite skipped: ${reason}`);
    return reason;
  }
  return undefined;
}

export function suiteTitle(title: string, unavailable: string | undefined): string {
  return unavailable === undefined ? `Cluster: ${title}` : `Cluster: ${title} — SKIPPED: ${unavailable}`;
}

/** A port nobody listens on right now (the OS's choice). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface PrivateRedis {
  url: string;
  port: number;
  /** SIGKILLs the server (as a crash would) and resolves once it is gone. */
  kill(): Promise<void>;
}

/** Starts `redis-server` on a free port of 127.0.0.1, without persistence; resolves once it accepts connections. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
    const collect = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited:\n${output}`));
    });
  });
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface ClusterSettings {
  /** The PostgreSQL URL (a test schema's). */
  databaseUrl: string;
  redisUrl: string;
  /** Rate limits scaled by this factor (RECSVC_RATE_LIMIT_SCALE). */
  rateLimitScale: number;
  /** The pseudonym key every instance shares (RECSVC_PSEUDONYM_KEY). */
  pseudonymKey: string;
}

/** The environment of one instance of the cluster. */
export function instanceEnv(settings: ClusterSettings): Record<string, string> {
  return {
    RECSVC_REDIS_URL: settings.redisUrl,
    RECSVC_PSEUDONYM_KEY: settings.pseudonymKey,
    RECSVC_RATE_LIMIT_SCALE: String(settings.rateLimitScale),
    // The agents stay out of the way: the tests run the one they need with `recsvc agents run`.
    RECSVC_AGENT_INTERVAL: '3600',
  };
}

/** A fresh pseudonym key (hex, 32 bytes). */
export function pseudonymKey(): string {
  return randomBytes(32).toString('hex');
}

/** Starts `count` instances at once (so their migrations race, as a rolling deploy's would). */
export async function startCluster(count: number, settings: ClusterSettings): Promise<ServeProcess[]> {
  const env = instanceEnv(settings);
  const started = await Promise.allSettled(
    Array.from({ length: count }, () => startServe(['--db', settings.databaseUrl, '--cluster', '--log-level', 'info'], env)),
  );
  const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) {
    for (const result of started) if (result.status === 'fulfilled') await result.value.stop();
    throw failed.reason;
  }
  return started.map((result) => (result as PromiseFulfilledResult<ServeProcess>).value);
}
