// Benchmarks on PostgreSQL (issue 14), against real `recsvc serve` children:
//   node bench/cluster.js postgres   one instance on PostgreSQL, no Redis, rate limits off: the
//                                    same runs as bench/run.js (npm run bench:postgres)
//   node bench/cluster.js cluster    two `serve --cluster` instances on one PostgreSQL schema and
//                                    one Redis, rate limits on (counted in Redis, scaled so none
//                                    is reached): each run first against instance A alone, then
//                                    spread over A and B (npm run bench:cluster)
// The data set is bench/run.js's (10,000 posts, 200,000 interactions, 5,000 users; BENCH_USERS
// and friends shrink it), seeded into a fresh schema of RECSVC_BENCH_DATABASE_URL (default the
// tests' postgres://postgres@127.0.0.1:5432/test) that is dropped at the end. Redis is a private
// `redis-server` on a free port (RECSVC_BENCH_REDIS_URL uses an existing one instead, under a
// key prefix of its own). Each run prints one JSON line; server_cpu_ms_per_request sums the
// serve processes' CPU, postgres_cpu_ms_per_request that of every `postgres` process of the
// machine (other work on the same server counts too), redis_cpu_ms_per_request the private Redis.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDatabase } from '../dist/server/platform/db/connection.js';
import { migrateToLatest } from '../dist/server/platform/db/migrate.js';
import { seedDemo } from '../dist/server/demo/demo.seed.js';
import { cpuOfProcessesNamed, freePort, measure, processCpuMs, waitForHealth } from './harness.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'recsvc');
const mode = process.argv[2] ?? 'postgres';
if (mode !== 'postgres' && mode !== 'cluster') throw new Error(`usage: node bench/cluster.js postgres|cluster, not ${mode}`);
const duration = Number(process.env.BENCH_DURATION ?? 10);
const settleMs = Number(process.env.BENCH_SETTLE_MS ?? 31_000);
const sizes = {
  posts: Number(process.env.BENCH_POSTS ?? 10_000),
  interactions: Number(process.env.BENCH_INTERACTIONS ?? 200_000),
  users: Number(process.env.BENCH_USERS ?? 5_000),
  authors: Number(process.env.BENCH_AUTHORS ?? 500),
};
const baseUrl = process.env.RECSVC_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `recsvc_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
const databaseUrl = (() => {
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
})();
const pseudonymKey = randomBytes(32).toString('hex');
const children = [];
let redis;

/** A private redis-server on a free port, or RECSVC_BENCH_REDIS_URL's. */
async function startRedis() {
  if (process.env.RECSVC_BENCH_REDIS_URL) return { url: process.env.RECSVC_BENCH_REDIS_URL, pid: null };
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  children.push(child);
  return { url: `redis://127.0.0.1:${port}/0`, pid: child.pid };
}

/** Starts one `recsvc serve` on a free port; resolves with its base URL once healthy. */
async function startServe(extraArgs, env) {
  const port = await freePort();
  const child = spawn(process.execPath, [bin, 'serve', '--db', databaseUrl, '--port', String(port), '--log-level', 'warn', ...extraArgs], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, RECSVC_PSEUDONYM_KEY: pseudonymKey, ...env },
  });
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  await waitForHealth(base, child);
  return { base, pid: child.pid };
}

const admin = new pg.Pool({ connectionString: baseUrl, max: 1 });
try {
  await admin.query(`CREATE SCHEMA ${schema}`);
  const database = await openDatabase(databaseUrl);
  const started = Date.now();
  await migrateToLatest(database.db);
  await seedDemo(database, sizes);
  const postIds = (await database.db.selectFrom('posts').select('id').execute()).map((r) => r.id);
  await database.close();
  console.error(`seeded ${JSON.stringify(sizes)} into PostgreSQL schema ${schema} in ${Date.now() - started} ms`);
  const token = JSON.parse(
    execFileSync(
      process.execPath,
      [bin, 'token', 'create', '--scopes', 'read,write,admin', '--label', 'bench', '--db', databaseUrl, '--json'],
      {
        encoding: 'utf8',
        env: { ...process.env, RECSVC_PSEUDONYM_KEY: pseudonymKey },
      },
    ),
  ).token;

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
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  if (mode === 'postgres') {
    const a = await startServe(['--rate-limit', 'off'], {});
    const cpu = { server: a.pid, postgres: () => cpuOfProcessesNamed('postgres') };
    const run = (name, connections, requestFactory, amount) =>
      measure({ name, url: a.base, connections, duration, amount, headers, requestFactory, cpu });
    await warmUp(run);
    await settle();
    await run('recommendations', 10, recommendations);
    await run('recommendations', 50, recommendations);
    await run('interactions_warmup', 10, interaction, 5_000);
    await run('interactions', 10, interaction);
    await run('interactions', 50, interaction);
  } else {
    redis = await startRedis();
    // Rate limits on, counted in Redis as in production, scaled so the bench token never reaches them.
    const env = { RECSVC_REDIS_URL: redis.url, RECSVC_REDIS_PREFIX: `${schema}:`, RECSVC_RATE_LIMIT_SCALE: '100000' };
    const [a, b] = await Promise.all([startServe(['--cluster'], env), startServe(['--cluster'], env)]);
    const cpu = {
      server: [a.pid, b.pid],
      postgres: () => cpuOfProcessesNamed('postgres'),
      ...(redis.pid ? { redis: redis.pid } : {}),
    };
    const run = (name, targets, connections, requestFactory, amount) =>
      measure({ name, url: targets.map((t) => t.base), connections, duration, amount, headers, requestFactory, cpu });
    // Every user's first request on each instance: both hold every profile before the measured runs.
    await warmUp((name, connections, factory, amount) => run(`${name}_on_a`, [a], connections, factory, amount));
    await warmUp((name, connections, factory, amount) => run(`${name}_on_b`, [b], connections, factory, amount));
    await settle();
    await run('recommendations_one_instance', [a], 50, recommendations);
    await settle();
    await run('recommendations_two_instances', [a, b], 50, recommendations);
    await run('interactions_warmup', [a, b], 10, interaction, 5_000);
    await run('interactions_one_instance', [a], 50, interaction);
    await run('interactions_two_instances', [a, b], 50, interaction);
  }
  if (processCpuMs(process.pid) === null) console.error('no /proc here: CPU per request is null');
} finally {
  for (const child of children.reverse()) {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }
  await admin
    .query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    .catch((error) => console.error(`schema ${schema} not dropped: ${error.message}`));
  await admin.end();
}

/** Every user's first request (builds their profile from the database, then kept in memory). */
async function warmUp(run) {
  let next = 0;
  const everyUser = () => ({ method: 'GET', path: `/api/v1/recommendations?user_id=user${1 + (next++ % sizes.users)}&limit=20` });
  await run('recommendations_first_request_per_user', 10, everyUser, sizes.users);
}

/** Lets the warm-up's cached lists (30 s) expire, so measured runs mix full rankings and cache hits. */
function settle() {
  return new Promise((r) => setTimeout(r, settleMs));
}
