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
// BENCH_DURATION (seconds per run, default 8), BENCH_ROUNDS (default 12: the three runs
// repeated, each reported, their order rotated each round so that none always follows
// another; the last line gives, for blending and the proxy, the median over the rounds of
// each round's p95 minus that round's direct p95 — runs seconds apart, so the VM's drift
// between rounds cancels — with a distribution-free 95% confidence interval of that median
// and a verdict against the target: `met` when the whole interval is under it, `missed` when
// all of it is over, else `undecided`; and the difference of the medians, as before),
// BENCH_CONNECTIONS (default 10), BENCH_ONLY (one of direct, blended, proxy), BENCH_NODE_ARGS
// (flags for the server's node, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof-blend": the profile
// is written when the server stops).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { openSqlite } from '../dist/server/platform/db/connection.js';
import { migrateToLatest } from '../dist/server/platform/db/migrate.js';
import { seedDemo } from '../dist/server/demo/demo.seed.js';
import { freePort, measure, round2, waitForHealth } from './harness.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const duration = Number(process.env.BENCH_DURATION ?? 8);
const rounds = Number(process.env.BENCH_ROUNDS ?? 12);
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

/** P(X <= k) for X ~ Binomial(n, 1/2). */
function binomialHalfCdf(n, k) {
  let term = Math.pow(0.5, n);
  let sum = term;
  for (let i = 1; i <= k; i++) {
    term = (term * (n - i + 1)) / i;
    sum += term;
  }
  return sum;
}

/**
 * A distribution-free confidence interval (at least 95%) for the median of `values`: the
 * order statistics k and n + 1 - k with the largest k such that P(Binomial(n, 1/2) < k) <= 2.5%
 * (the sign test's interval; n >= 6 for one to exist). Null when there are too few values.
 */
function medianInterval(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  let k = 0;
  while (k + 1 <= n && binomialHalfCdf(n, k) <= 0.025) k++;
  return k === 0 ? null : [round2(sorted[k - 1]), round2(sorted[n - k])];
}

/** `met` when the whole interval is at or under the target, `missed` when all of it is over, else `undecided`. */
function verdict(interval, target) {
  if (interval === null) return 'undecided';
  return interval[1] <= target ? 'met' : interval[0] > target ? 'missed' : 'undecided';
}

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
    // Rotated: round r starts with target r mod 3, so no run always follows the same other one.
    for (let i = 0; i < targets.length; i++) {
      const target = targets[(round + i) % targets.length];
      const line = await measure({ ...target, connections: CONNECTIONS, duration, headers, cpu });
      p95s[target.name].push(line.p95);
    }
  }
  const direct = median(p95s.home_direct ?? []);
  const differences = (name) => p95s[name].map((p95, round) => p95 - p95s.home_direct[round]);
  const added = (name, target) => {
    const interval = medianInterval(differences(name));
    return { median: round2(median(differences(name))), ci95: interval, target, verdict: verdict(interval, target) };
  };
  if (targets.length === 3)
    console.log(
      JSON.stringify({
        name: 'home_p95_added_ms',
        connections: CONNECTIONS,
        rounds,
        seconds_per_run: duration,
        direct_p95: direct,
        blended: added('home_blended', 5),
        proxy: added('home_proxy', 2),
        blended_median_minus_median: round2(median(p95s.home_blended) - direct),
        proxy_median_minus_median: round2(median(p95s.home_proxy) - direct),
      }),
    );
} finally {
  await stop(server);
  await stop(instance?.child);
  rmSync(dir, { recursive: true, force: true });
}
