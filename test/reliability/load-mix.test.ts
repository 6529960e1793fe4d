/**
 * Load over a mix of routes at 200 connections (autocannon) against a real
 * `recsvc serve --demo` child process with its production settings (load shedding
 * on; rate limiting off, or every caller would be throttled): recommendations,
 * interaction writes and lists, posts, trending and health. Zero 5xx (a load-shedding
 * 503 counts: at 200 connections the service must not need to shed) and zero connection
 * errors; the server's RSS (from /proc), CPU and event-loop lag are recorded, printed as
 * a table and written to test/reliability/results/load-<mode>.json (gitignored). The
 * machine must not be busy with other work: a server starved of CPU lags and sheds.
 * 10 s by default, 60 s under RECSVC_RELIABILITY_LONG=1 (or RECSVC_RELIABILITY_LOAD_SECONDS).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import autocannon, { type AutocannonRequest } from 'autocannon';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { parsePrometheusText } from '../helpers/prometheus.js';
import { readProcessMemory } from './support/process-memory.js';
import { killStartedServers, mintToken, startRecsvc, freshDbPath } from './support/recsvc-server.js';
import { LONG, SEED, byMode, seededRandom, sleep } from './support/suite-settings.js';

const CONNECTIONS = 200;
const SECONDS = Number(process.env.RECSVC_RELIABILITY_LOAD_SECONDS ?? byMode(10, 60));
const DEMO_USERS = 2_000;
const ACTIONS = ['favorite', 'bookmark', 'reblog'];

/** Routes of the mix with their share of requests. */
const MIX: ReadonlyArray<readonly [string, number]> = [
  ['GET /api/v1/recommendations', 0.3],
  ['POST /api/v1/interactions', 0.25],
  ['GET /api/v1/posts', 0.12],
  ['GET /api/v1/posts/trending', 0.12],
  ['GET /api/v1/interactions', 0.06],
  ['GET /health', 0.15],
];

afterAll(killStartedServers);

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The server's event-loop lag (ms) since the previous scrape: prom-client resets its histogram on each. */
async function eventLoopLagMs(baseUrl: string): Promise<{ p99: number; max: number }> {
  const families = parsePrometheusText(await (await fetch(`${baseUrl}/metrics`)).text());
  const value = (name: string): number => Math.round((families.get(name)?.samples[0]?.value ?? Number.NaN) * 1000);
  return { p99: value('nodejs_eventloop_lag_p99_seconds'), max: value('nodejs_eventloop_lag_max_seconds') };
}

async function demoPostIds(baseUrl: string): Promise<string[]> {
  const ids: string[] = [];
  let maxId = '';
  for (let page = 0; page < 5; page++) {
    const response = await fetch(`${baseUrl}/api/v1/posts?limit=40${maxId ? `&max_id=${maxId}` : ''}`);
    const posts = (await response.json()) as Array<{ id: string }>;
    if (posts.length === 0) break;
    ids.push(...posts.map((p) => p.id));
    maxId = posts[posts.length - 1]!.id;
  }
  return ids;
}

describe(`load at ${CONNECTIONS} connections over a mix of routes`, () => {
  it(
    `serves ${SECONDS} s without a 5xx or a connection error, RSS recorded`,
    async () => {
      const dbPath = freshDbPath('load.db');
      const token = await mintToken(dbPath);
      const server = await startRecsvc({ dbPath, args: ['--demo', '--rate-limit', 'off'], shedding: true, readyTimeoutMs: 180_000 });
      const postIds = await demoPostIds(server.baseUrl);
      expect(postIds.length).toBeGreaterThan(100);
      const random = seededRandom(SEED);
      const user = (): string => `user${1 + Math.floor(random() * DEMO_USERS)}`;
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
      const build: Record<string, () => AutocannonRequest> = {
        'GET /api/v1/recommendations': () => ({ method: 'GET', path: `/api/v1/recommendations?user_id=${user()}&limit=20` }),
        'POST /api/v1/interactions': () => ({
          method: 'POST',
          path: '/api/v1/interactions',
          body: JSON.stringify({ user_id: user(), post_id: pick(postIds), action_type: pick(ACTIONS) }),
        }),
        'GET /api/v1/posts': () => ({ method: 'GET', path: `/api/v1/posts?limit=20&max_id=${pick(postIds)}` }),
        'GET /api/v1/posts/trending': () => ({ method: 'GET', path: '/api/v1/posts/trending?limit=20' }),
        'GET /api/v1/interactions': () => ({ method: 'GET', path: `/api/v1/interactions?user_id=${user()}&limit=20` }),
        'GET /health': () => ({ method: 'GET', path: '/health' }),
      };
      // A complete request with its own headers object each time: autocannon writes Content-Length
      // into the headers it is handed, and a shared object would carry it over to the next GET.
      const nextRequest = (): AutocannonRequest => {
        let r = random();
        const route = MIX.find(([, share]) => (r -= share) < 0)?.[0] ?? 'GET /health';
        const request = build[route]!();
        const headers: Record<string, string> = { authorization: `Bearer ${token}` };
        if (request.body !== undefined) headers['content-type'] = 'application/json';
        return { ...request, headers };
      };

      await sleep(1_000);
      await eventLoopLagMs(server.baseUrl);
      const before = readProcessMemory(server.pid);
      const cpuBefore = cpuSeconds(server.pid);
      const statuses = new Map<number, number>();
      const latencies: number[] = [];
      const instance = autocannon({
        url: server.baseUrl,
        connections: CONNECTIONS,
        duration: SECONDS,
        timeout: 30,
        requests: [{ setupRequest: () => nextRequest() }],
      });
      instance.on('response', (_client: unknown, status: number, _bytes: number, responseTime: number) => {
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        latencies.push(responseTime);
      });
      const result = await instance;
      const cpuUsed = cpuSeconds(server.pid) - cpuBefore;
      const after = readProcessMemory(server.pid);
      const lag = await eventLoopLagMs(server.baseUrl);
      await sleep(2_000);
      const settled = readProcessMemory(server.pid);
      const health = await fetch(`${server.baseUrl}/health`);
      expect(health.status).toBe(200);
      expect(await server.stop('SIGTERM')).toBe(0);

      latencies.sort((a, b) => a - b);
      const percentile = (p: number): number =>
        Math.round((latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0) * 10) / 10;
      const serverErrors = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
      const figures = {
        mode: LONG ? 'long' : 'short',
        measured_at: new Date().toISOString(),
        node: process.version,
        cpus: cpus().length,
        connections: CONNECTIONS,
        seconds: SECONDS,
        mix: Object.fromEntries(MIX),
        requests: latencies.length,
        requests_per_second: Math.round(result.requests.average),
        latency_ms: { p50: percentile(50), p95: percentile(95), p99: percentile(99), max: Math.round(result.latency.max) },
        statuses: Object.fromEntries(statuses),
        server_errors_5xx: serverErrors,
        connection_errors: result.errors,
        timeouts: result.timeouts,
        shed_503: statuses.get(503) ?? 0,
        server_cpu_seconds: Math.round(cpuUsed * 10) / 10,
        event_loop_lag_ms: lag,
        rss_mib: { before: before.rssMiB, after: after.rssMiB, after_2s: settled.rssMiB, peak: after.peakRssMiB },
      };
      mkdirSync(`${REPO_ROOT}test/reliability/results`, { recursive: true });
      writeFileSync(`${REPO_ROOT}test/reliability/results/load-${figures.mode}.json`, `${JSON.stringify(figures, null, 2)}\n`);
      console.log(
        [
          `load: ${CONNECTIONS} connections, ${SECONDS} s, mix ${MIX.map(([r, s]) => `${r} ${s * 100}%`).join(', ')}`,
          '| requests | req/s | p50 | p95 | p99 | 5xx | errors | RSS before | RSS after | peak RSS |',
          '|---|---|---|---|---|---|---|---|---|---|',
          `| ${figures.requests} | ${figures.requests_per_second} | ${figures.latency_ms.p50} ms | ${figures.latency_ms.p95} ms | ${figures.latency_ms.p99} ms | ${serverErrors} | ${result.errors} | ${before.rssMiB} MiB | ${after.rssMiB} MiB | ${after.peakRssMiB} MiB |`,
          `statuses ${JSON.stringify(figures.statuses)}; server CPU ${figures.server_cpu_seconds} s; event-loop lag p99 ${lag.p99} ms, max ${lag.max} ms`,
        ].join('\n'),
      );
      expect({ serverErrors, connectionErrors: result.errors, timeouts: result.timeouts }).toEqual({
        serverErrors: 0,
        connectionErrors: 0,
        timeouts: 0,
      });
      expect(latencies.length).toBeGreaterThan(SECONDS * 50);
    },
    (SECONDS + 240) * 1000,
  );
});
