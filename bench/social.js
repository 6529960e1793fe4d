// Home timeline against the Mastodon test instance (issue 11, see bench/README.md): the same
// instance page fetched directly, through the service's blended /api/v1/timelines/home, and
// through the proxy (/api/v1/proxy/api/v1/timelines/home), each at 10 connections in the same
// run, with the service's p95 minus the direct p95 (targets: blending +5 ms, proxy +2 ms).
// Bundles test/helpers/mastodon-instance.ts with esbuild and runs it as its own process
// (bench/social-instance.js); seeds a temporary database with demo posts so blending has
// candidates; starts `recsvc serve --rate-limit off` with RECSVC_ALLOW_INSECURE_INSTANCES=1.
// The blended run is one user re-reading the same page: after the first read nothing is stored
// again and recommendations come from the user's ranked window (server/timelines), so it
// measures the steady state of a refreshing client; storing new statuses is paid once per change.
// Run after `npx tsc -p tsconfig.build.json`: node bench/social.js
// BENCH_DURATION (seconds per run, default 10), BENCH_ROUNDS (default 5: the three runs
// repeated, each reported; the last line gives the median over the rounds of each round's
// p95 minus that round's direct p95, runs back to back, so the VM's drift between rounds
// cancels; and the difference of the medians, as before), BENCH_CONNECTIONS
// (default 10), BENCH_ONLY (one of direct, blended, proxy), BENCH_NODE_ARGS (flags for the server's node, e.g.
// "--cpu-prof --cpu-prof-dir=/tmp/prof-blend": the profile is written when the server stops).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { openSqlite } from '../dist/server/db/connection.js';
import { migrateToLatest } from '../dist/server/db/migrate.js';
import { seedDemo } from '../dist/server/demo/demo.seed.js';
import { freePort, measure, round2, waitForHealth } from './harness.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const duration = Number(process.env.BENCH_DURATION ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PAGE = '/api/v1/timelines/home?limit=20';
const SEED = { posts: 5_000, interactions: 50_000, users: 1_000, authors: 200 };

/** The test instance compiled to plain JS next to node_modules (its packages stay imports). */
async function bundleInstance() {
  const outfile = join(root, 'node_modules', '.cache', 'recsvc-bench', 'mastodon-instance.mjs');
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    entryPoints: [join(root, 'test', 'helpers', 'mastodon-instance.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  return outfile;
}

async function startInstance(bundle) {
  const child = spawn(process.execPath, [join(root, 'bench', 'social-instance.js'), bundle], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = await Promise.race([
    once(createInterface({ input: child.stdout }), 'line'),
    once(child, 'exit').then(([code]) => Promise.reject(new Error(`the test instance exited with ${code}`))),
  ]);
  return { child, ...JSON.parse(line) };
}

async function stop(child) {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

const dir = mkdtempSync(join(tmpdir(), 'recsvc-bench-social-'));
const dbPath = join(dir, 'bench.db');
let instance;
let server;
try {
  instance = await startInstance(await bundleInstance());
  const database = openSqlite(dbPath);
  await migrateToLatest(database.db);
  await seedDemo(database, SEED);
  await database.close();
  console.log(JSON.stringify({ name: 'seed', ...SEED }));

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  server = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
      join(root, 'bin', 'recsvc'),
      'serve',
      '--rate-limit',
      'off',
      '--db',
      dbPath,
      '--port',
      String(port),
      '--log-level',
      'warn',
    ],
    { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, RECSVC_ALLOW_INSECURE_INSTANCES: '1' } },
  );
  await waitForHealth(base, server);

  const headers = { authorization: `Bearer ${instance.token}`, 'x-social-instance': instance.host };
  const cpu = { server: server.pid, instance: instance.child.pid };
  const targets = [
    { name: 'home_direct', url: `${instance.origin}${PAGE}` },
    { name: 'home_blended', url: `${base}${PAGE}` },
    { name: 'home_proxy', url: `${base}/api/v1/proxy${PAGE}` },
  ].filter((target) => process.env.BENCH_ONLY === undefined || target.name === `home_${process.env.BENCH_ONLY}`);

  // One page through the service first: it must be blended (else the run measures nothing).
  const probe = await fetch(`${base}${PAGE}`, { headers });
  const probeText = await probe.text();
  const page = JSON.parse(probeText);
  if (!probe.ok || !Array.isArray(page)) throw new Error(`blended home timeline: ${probe.status} ${JSON.stringify(page)}`);
  const injected = page.filter((status) => status.is_recommendation === true).length;
  const directBytes = (await (await fetch(`${instance.origin}${PAGE}`, { headers })).arrayBuffer()).byteLength;
  console.log(
    JSON.stringify({
      name: 'pages',
      direct_bytes: directBytes,
      blended_bytes: Buffer.byteLength(probeText),
      blended_statuses: page.length,
      blended_injected: injected,
      blended_degraded: probe.headers.get('x-recsvc-degraded'),
    }),
  );
  if (injected === 0) throw new Error('the blended page has no recommendations: nothing to measure');

  // Warm-up (JIT, pooled connections, token cache), not reported.
  for (const target of targets) await measure({ ...target, connections: CONNECTIONS, duration: 2, headers, quiet: true });

  const p95s = Object.fromEntries(targets.map((target) => [target.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const target of targets) {
      const line = await measure({ ...target, connections: CONNECTIONS, duration, headers, cpu });
      p95s[target.name].push(line.p95);
    }
  }
  const direct = median(p95s.home_direct ?? []);
  const paired = (name) => round2(median(p95s[name].map((p95, round) => p95 - p95s.home_direct[round])));
  if (targets.length === 3)
    console.log(
      JSON.stringify({
        name: 'home_p95_added_ms',
        connections: CONNECTIONS,
        rounds,
        direct_p95: direct,
        blended: paired('home_blended'),
        blended_target: 5,
        proxy: paired('home_proxy'),
        proxy_target: 2,
        blended_median_minus_median: round2(median(p95s.home_blended) - direct),
        proxy_median_minus_median: round2(median(p95s.home_proxy) - direct),
      }),
    );
} finally {
  await stop(server);
  await stop(instance?.child);
  rmSync(dir, { recursive: true, force: true });
}
