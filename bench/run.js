// Benchmark of recommendations and interactions against a real `recsvc serve` (see bench/README.md).
// Seeds a temporary database (10,000 posts, 200,000 interactions, 5,000 users), starts the
// server as a child process with rate limiting off, and prints one JSON line per run:
// {name, connections, requests_per_sec, p50, p95, p99, errors} (latencies in ms).
// BENCH_DATASET=large seeds 100,000 users, 100,000 posts and 2,000,000 interactions instead
// (through the same demo seeding path) and runs recommendations for random users out of all
// of them at 10 connections, then prints the server's resident memory.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSqlite } from '../dist/server/db/connection.js';
import { migrateToLatest } from '../dist/server/db/migrate.js';
import { seedDemo } from '../dist/server/demo/demo.seed.js';
import { freePort, measure, waitForHealth } from './harness.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'recsvc');
// Seconds per measured run: 10 by default, 60 for the large data set (its memory target is after 60 s).
const duration = Number(process.env.BENCH_DURATION ?? (process.env.BENCH_DATASET === 'large' ? 60 : 10));
// BENCH_ONLY=interactions|recommendations runs one part (the warm-up always runs, so
// interactions update in-memory profiles as they would after the full sequence);
// BENCH_ONLY=first runs only the warm-up (the first request of every user).
const only = process.env.BENCH_ONLY ?? '';
const DATASETS = {
  default: { posts: 10_000, interactions: 200_000, users: 5_000, authors: 500 },
  large: { posts: 100_000, interactions: 2_000_000, users: 100_000, authors: 5_000 },
};
const dataset = process.env.BENCH_DATASET ?? 'default';
const sizes = DATASETS[dataset];
if (!sizes) throw new Error(`BENCH_DATASET must be one of ${Object.keys(DATASETS).join(', ')}, not ${dataset}`);

/** The server's resident memory (MB) from /proc; null where /proc is missing. */
function serverRssMb() {
  try {
    const line = readFileSync(`/proc/${child.pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
    return line ? Math.round(Number(line[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** One autocannon run with the bench token (one JSON line, with the server's CPU per request). */
function run(name, base, connections, token, requestFactory, amount) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  return measure({ name, url: base, connections, duration, amount, headers, requestFactory, cpu: { server: child.pid } });
}

const dir = mkdtempSync(join(tmpdir(), 'recsvc-bench-'));
const dbPath = join(dir, 'bench.db');
let child;
try {
  const database = openSqlite(dbPath);
  await migrateToLatest(database.db);
  const started = Date.now();
  const cpuBefore = process.cpuUsage();
  await seedDemo(database, sizes);
  const seedMs = Date.now() - started;
  // CPU time of every thread (the seeding's worker too): steadier than wall time on a shared machine.
  const seedCpu = process.cpuUsage(cpuBefore);
  const seedCpuMs = Math.round((seedCpu.user + seedCpu.system) / 1000);
  const postIds = (await database.db.selectFrom('posts').select('id').execute()).map((r) => r.id);
  await database.close();
  console.error(`seeded ${JSON.stringify(sizes)} in ${seedMs} ms (${seedCpuMs} ms of CPU)`);
  console.log(JSON.stringify({ name: 'seed', dataset, ...sizes, ms: seedMs, cpu_ms: seedCpuMs }));

  const token = JSON.parse(
    execFileSync(process.execPath, [bin, 'token', 'create', '--scopes', 'read,write,admin', '--label', 'bench', '--db', dbPath, '--json'], {
      encoding: 'utf8',
    }),
  ).token;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the server.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  child = spawn(
    process.execPath,
    [...nodeArgs, bin, 'serve', '--rate-limit', 'off', '--db', dbPath, '--port', String(port), '--log-level', 'warn'],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  await waitForHealth(base, child);

  const randomUser = () => `user${1 + Math.floor(Math.random() * sizes.users)}`;
  const recommendations = () => ({ method: 'GET', path: `/api/v1/recommendations?user_id=${randomUser()}&limit=20` });
  const actions = ['favorite', 'favorite', 'bookmark', 'reblog'];
  const interaction = () => ({
    method: 'POST',
    path: '/api/v1/interactions',
    body: JSON.stringify({
      user_id: randomUser(),
      post_id: postIds[Math.floor(Math.random() * postIds.length)],
      action_type: actions[Math.floor(Math.random() * actions.length)],
    }),
  });

  if (dataset === 'large') {
    // Users drawn at random out of 100,000: nearly every request is a user's first since the
    // start (the profile cache holds 10,000), so this is the cold path at scale; no warm-up
    // of every user (100,000 first requests would take minutes and fill the caches anyway).
    const rssBefore = serverRssMb();
    await run('recommendations_random_users_large', base, 10, token, recommendations);
    console.log(JSON.stringify({ name: 'server_rss_mb', dataset, after_start: rssBefore, after_run: serverRssMb() }));
  } else {
    await runDefault(base, token, recommendations, interaction);
  }
} finally {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  rmSync(dir, { recursive: true, force: true });
}

/** The default data set's sequence: every user's first request, then recommendations and interactions. */
async function runDefault(base, token, recommendations, interaction) {
  // Warm-up: each user's first request builds their profile from the database (lazily,
  // then kept in memory), so every user is asked once before the measured runs.
  // Before it, the process's own warm-up (JIT, first touches of the database's pages), reported
  // but not a measured run: 2,000 requests for users who are not in the data set (a new user's
  // list: the same routes, ranking and serialisation, no stored history), so that every user
  // of the data set is still asked for the first time in the measured run.
  let newcomer = 0;
  const newcomers = () => ({ method: 'GET', path: `/api/v1/recommendations?user_id=newcomer${++newcomer}&limit=20` });
  await run('recommendations_warmup', base, 10, token, newcomers, 2_000);
  let next = 0;
  const everyUser = () => ({ method: 'GET', path: `/api/v1/recommendations?user_id=user${1 + (next++ % sizes.users)}&limit=20` });
  await run('recommendations_first_request_per_user', base, 10, token, everyUser, sizes.users);
  if (only !== 'interactions' && only !== 'first') {
    // Let the warm-up's cached lists (30 s) expire: the measured runs then mix cache misses
    // (full ranking) and the hits of users drawn again within 30 s, as live traffic would.
    await new Promise((r) => setTimeout(r, Number(process.env.BENCH_SETTLE_MS ?? 31_000)));
    await run('recommendations', base, 10, token, recommendations);
    await run('recommendations', base, 50, token, recommendations);
  }
  if (only !== 'recommendations' && only !== 'first') {
    // Warm-up of the write path (JIT, first touches of the index pages), reported but not a
    // measured run: the first seconds of writes after the recommendation runs are slower.
    await run('interactions_warmup', base, 10, token, interaction, 5_000);
    await run('interactions', base, 10, token, interaction);
    await run('interactions', base, 50, token, interaction);
  }
}
