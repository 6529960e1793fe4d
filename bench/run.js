// Paired benchmark of `recsvc serve` against a plain fastify + better-sqlite3 server (issue 27;
// see bench/README.md). Seeds the data set once (10,000 posts, 200,000 interactions, 5,000
// users), gives every server its own copy of the file, starts them side by side (pinned to
// core 0 with taskset when it exists, the load generator on core 1), and runs each phase in
// interleaved rounds: round r asks every server in turn, in an order that rotates per round,
// the same request sequence. Prints one JSON line per run and, at the end, the ratios of
// every round and their median.
//
//   node bench/run.js                    HEAD vs the plain server, plus an A/A pair (plain vs plain)
//   node bench/run.js --compare <ref>    also builds <ref> in a temporary git worktree and runs it
//                                        beside HEAD (ratios HEAD / ref)
//
// BENCH_DURATION (s per timed run, default 5), BENCH_ROUNDS (3), BENCH_ONLY (first |
// recommendations | interactions), BENCH_AA (plain: two plain servers, default; recsvc: two
// HEAD servers; off), BENCH_RECORD=<dir> (writes every phase's request sequence as JSON lines),
// BENCH_NODE_ARGS (node flags for the HEAD server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
// BENCH_DATASET=large seeds 100,000 users, 100,000 posts and 2,000,000 interactions and runs
// recommendations for random users out of all of them against HEAD alone (the cold path at scale),
// then prints the server's resident memory.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { freePort, measure, waitForHealth } from './harness.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const compareAt = args.indexOf('--compare');
const compareRef = compareAt >= 0 ? args[compareAt + 1] : undefined;
if (compareAt >= 0 && !compareRef) throw new Error('usage: node bench/run.js [--compare <git ref>]');

const dataset = process.env.BENCH_DATASET ?? 'default';
// Seconds per timed run: 5 by default (3 rounds of every phase then take a few minutes), 60 for
// the large data set (its memory target is after 60 s).
const duration = Number(process.env.BENCH_DURATION ?? (dataset === 'large' ? 60 : 5));
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const only = process.env.BENCH_ONLY ?? '';
const aa = process.env.BENCH_AA ?? 'plain';
const recordDir = process.env.BENCH_RECORD;
// BENCH_VARIANT_ENV="A=1 B=2": a fourth server, this checkout's build with those settings, paired
// with HEAD (e.g. RECSVC_RANKING_FIT=off to see what the fit agent costs the serving process).
const variantEnv = Object.fromEntries(
  (process.env.BENCH_VARIANT_ENV ?? '')
    .split(' ')
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
const DATASETS = {
  default: { posts: 10_000, interactions: 200_000, users: 5_000, authors: 500 },
  large: { posts: 100_000, interactions: 2_000_000, users: 100_000, authors: 5_000 },
};
const sizes = DATASETS[dataset];
if (!sizes) throw new Error(`BENCH_DATASET must be one of ${Object.keys(DATASETS).join(', ')}, not ${dataset}`);

// Pinning: servers on core 0, this process (autocannon) on core 1, when taskset exists and there are 2+ cores.
const pinned = cpus().length >= 2 && spawnSync('taskset', ['-V']).status === 0;
if (pinned) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });

const dir = mkdtempSync(join(tmpdir(), 'recsvc-bench-'));
const servers = [];
/** When the run started: phases and fits are printed as seconds since (`started_s`, `at_s`). */
const benchStartMs = Date.now();
let refWorktree;

/** Seeds `dbPath` with the demo generator of the checkout at `checkout` (a child process). */
function seed(checkout, dbPath, anchorMs) {
  const out = execFileSync(process.execPath, [join(root, 'bench', 'seed.js'), checkout, dbPath, JSON.stringify(sizes), String(anchorMs)], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  return JSON.parse(out);
}

/** A copy of a closed SQLite file (with its WAL, if one was left). */
function copyDatabase(from, to) {
  copyFileSync(from, to);
  if (existsSync(`${from}-wal`)) copyFileSync(`${from}-wal`, `${to}-wal`);
  return to;
}

/** An admin token minted by the checkout's own CLI. */
function mintToken(checkout, dbPath) {
  const bin = join(checkout, 'bin', 'recsvc');
  return JSON.parse(
    execFileSync(process.execPath, [bin, 'token', 'create', '--scopes', 'read,write,admin', '--label', 'bench', '--db', dbPath, '--json'], {
      encoding: 'utf8',
    }),
  ).token;
}

/** Starts a server (kind recsvc or plain) on a free port, pinned to core 0 when possible. */
async function startServer(label, kind, dbPath, checkout = root, nodeArgs = [], env = {}) {
  const port = await freePort();
  const command =
    kind === 'plain'
      ? [process.execPath, join(root, 'bench', 'plain-server.js'), dbPath, String(port)]
      : [
          process.execPath,
          ...nodeArgs,
          join(checkout, 'bin', 'recsvc'),
          'serve',
          '--rate-limit',
          'off',
          '--db',
          dbPath,
          '--port',
          String(port),
          '--log-level',
          'warn',
        ];
  // taskset execs the command: the child's pid is the server's.
  const options = { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...env } };
  const child = pinned ? spawn('taskset', ['-c', '0', ...command], options) : spawn(command[0], command.slice(1), options);
  const server = { label, kind, child, base: `http://127.0.0.1:${port}`, dbPath };
  servers.push(server);
  // A loaded machine can take long to start a server: two minutes before giving up.
  await waitForHealth(server.base, child, 120);
  return server;
}

/**
 * The background jobs that change what a server serves, read from its database after the run
 * (seconds since the run started): every `ranking_fit` run (status, the point chosen) and the
 * item model in effect (`item_models` holds the newest build only: when it began, its size). A
 * fit applied or a model loaded during a phase drops every cached list, so a dip in a round can
 * be told from the code's own cost. null where a table cannot be read.
 */
function backgroundJobs(server) {
  let db;
  try {
    db = new Database(server.dbPath, { readonly: true, fileMustExist: true });
    const read = (sql, map) => {
      try {
        return db.prepare(sql).all().map(map);
      } catch {
        return null;
      }
    };
    const fits = read('SELECT created_at_ms, status, choice FROM ranking_fits ORDER BY created_at_ms', (row) => ({
      at_s: secondsSinceStart(Number(row.created_at_ms)),
      status: row.status,
      choice: JSON.parse(row.choice),
    }));
    const models = read('SELECT created_at_ms, interactions, posts, bytes FROM item_models', (row) => ({
      built_from_s: secondsSinceStart(Number(row.created_at_ms)),
      interactions: Number(row.interactions),
      posts: Number(row.posts),
      bytes: Number(row.bytes),
    }));
    return { fits, item_model: models === null ? null : (models[0] ?? 'none') };
  } catch {
    return { fits: null, item_model: null };
  } finally {
    db?.close();
  }
}

function secondsSinceStart(ms) {
  return Math.round((ms - benchStartMs) / 1000);
}

/** The server's resident memory (MB) from /proc; null where /proc is missing. */
function rssMb(server) {
  try {
    const line = readFileSync(`/proc/${server.child.pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
    return line ? Math.round(Number(line[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/**
 * Where a server's memory is after a run, from its /metrics (MB): the V8 heap used and committed,
 * ArrayBuffers and other external memory, the resident set, and each cache's own byte estimate
 * (`service_cache_bytes`), so the estimates can be checked against what the process holds.
 */
async function memoryBreakdown(server) {
  const text = await (await fetch(`${server.base}/metrics`)).text();
  const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;
  const value = (re) => {
    const m = text.match(re);
    return m ? mb(Number(m[1])) : null;
  };
  const caches = Object.fromEntries(
    [...text.matchAll(/^service_cache_bytes\{cache="([a-z_]+)"\} (\d+)/gm)].map(([, cache, bytes]) => [cache, mb(Number(bytes))]),
  );
  return {
    rss: value(/^process_resident_memory_bytes (\S+)/m),
    heap_used: value(/^nodejs_heap_size_used_bytes (\S+)/m),
    heap_total: value(/^nodejs_heap_size_total_bytes (\S+)/m),
    external: value(/^nodejs_external_memory_bytes (\S+)/m),
    cache_estimates: caches,
  };
}

/** Builds `ref` in a temporary git worktree (node_modules linked when the lockfile is the same). */
function buildRef(ref) {
  const sha = execFileSync('git', ['-C', root, 'rev-parse', '--verify', `${ref}^{commit}`], { encoding: 'utf8' }).trim();
  const where = join(tmpdir(), `recsvc-bench-ref-${sha.slice(0, 12)}`);
  const built = existsSync(join(where, 'dist', 'server', 'start.js'));
  if (!built) {
    rmSync(where, { recursive: true, force: true });
    execFileSync('git', ['-C', root, 'worktree', 'prune']);
    execFileSync('git', ['-C', root, 'worktree', 'add', '--detach', where, sha], { stdio: 'ignore' });
    const lock = (checkout) => readFileSync(join(checkout, 'package-lock.json'), 'utf8');
    if (lock(where) === lock(root)) {
      symlinkSync(join(root, 'node_modules'), join(where, 'node_modules'));
    } else {
      console.error(`${ref}: package-lock.json differs from HEAD's: npm ci (slow)`);
      execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: where, stdio: 'inherit' });
    }
    console.error(`building ${ref} (${sha.slice(0, 12)}) in ${where}`);
    execFileSync(process.execPath, [join(where, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
      cwd: where,
      stdio: 'inherit',
    });
  } else {
    console.error(`${ref} (${sha.slice(0, 12)}): reusing the build in ${where}`);
  }
  return { sha, where };
}

/** A deterministic generator of uniform numbers in [0, 1) (mulberry32): every server gets the same requests. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A request factory replaying the sequence `make(random)` produces; BENCH_RECORD writes it down. */
function sequence(name, seedValue, make) {
  const next = random(seedValue);
  const made = [];
  return {
    factory: () => {
      const request = make(next);
      if (recordDir) made.push(request);
      return request;
    },
    record: (server) => {
      if (!recordDir) return;
      mkdirSync(recordDir, { recursive: true });
      writeFileSync(join(recordDir, `${name}.${server}.jsonl`), made.map((r) => JSON.stringify(r)).join('\n') + '\n');
    },
  };
}

const median = (xs) => {
  const s = xs.filter((x) => x !== null && Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return null;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const r2 = (x) => (x === null || !Number.isFinite(x) ? null : Math.round(x * 100) / 100);

/**
 * One phase in interleaved rounds: round r runs every server once (order rotated by r), each on
 * the sequence `makeFor(round)` (a fresh request maker per run) draws from the seed of (phase,
 * round). Returns {label: [line per round]}.
 */
async function phase(name, connections, makeFor, { amountPerRound } = {}) {
  const results = Object.fromEntries(servers.map((s) => [s.label, []]));
  for (let round = 0; round < rounds; round++) {
    const order = servers.map((_, i) => servers[(i + round) % servers.length]);
    for (const server of order) {
      const seq = sequence(`${name}.c${connections}.r${round + 1}`, hash(`${name}/${connections}/${round}`), makeFor(round, server));
      const started = secondsSinceStart(Date.now());
      const line = await measure({
        name,
        url: server.base,
        connections,
        duration,
        amount: amountPerRound?.(round),
        headers: server.headers,
        requestFactory: seq.factory,
        cpu: { server: server.child.pid },
        quiet: true,
      });
      seq.record(server.label);
      const printed = { ...line, server: server.label, round: round + 1, started_s: started };
      console.log(JSON.stringify(printed));
      results[server.label].push(printed);
    }
  }
  report.push({ name, connections, results });
  return results;
}

function hash(text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

const report = [];

/** Ratios of a phase: a over b per round (requests/s, and CPU per request b over a: > 1 means a is cheaper). */
function ratios(entry, a, b) {
  const A = entry.results[a];
  const B = entry.results[b];
  if (!A || !B) return null;
  const rps = A.map((x, i) => r2(x.requests_per_sec / B[i].requests_per_sec));
  const cpu = A.map((x, i) => r2(B[i].server_cpu_ms_per_request / x.server_cpu_ms_per_request));
  const p99 = A.map((x, i) => r2(x.p99 / B[i].p99));
  return { rps, rps_median: r2(median(rps)), cpu, cpu_median: r2(median(cpu)), p99, p99_median: r2(median(p99)) };
}

function printSummary() {
  const pairs = [
    ['head', 'plain', 'HEAD / plain'],
    ['plain_aa', 'plain', 'A/A: plain #2 / plain'],
    ['head_aa', 'head', 'A/A: HEAD #2 / HEAD'],
    ['head', 'ref', `HEAD / ${compareRef}`],
    ['variant', 'head', `variant / HEAD`],
  ];
  const summary = [];
  console.error('\nRatios per round (requests/s a/b; CPU per request b/a, > 1 = a cheaper; p99 a/b):');
  for (const entry of report) {
    const title = `${entry.name} c=${entry.connections}`;
    for (const [a, b, label] of pairs) {
      const r = ratios(entry, a, b);
      if (!r) continue;
      summary.push({ name: entry.name, connections: entry.connections, pair: `${a}/${b}`, ...r });
      console.error(
        `  ${title.padEnd(34)} ${label.padEnd(26)} req/s ${r.rps.join(' ')} (median ${r.rps_median})  ` +
          `cpu ${r.cpu.join(' ')} (${r.cpu_median})  p99 ${r.p99.join(' ')} (${r.p99_median})`,
      );
    }
    const perServer = Object.entries(entry.results)
      .map(([label, lines]) => `${label} ${lines.map((l) => l.requests_per_sec).join('/')} req/s, p99 ${lines.map((l) => l.p99).join('/')}`)
      .join('; ');
    console.error(`    ${perServer}`);
  }
  console.log(JSON.stringify({ name: 'ratios', duration, rounds, pinned, compare: compareRef ?? null, summary }));
}

try {
  const anchorMs = Date.now();
  const headDb = join(dir, 'head.db');
  const seeded = seed(root, headDb, anchorMs);
  const postIds = seeded.post_ids;
  console.error(`seeded ${JSON.stringify(sizes)} in ${seeded.ms} ms (${seeded.cpu_ms} ms of CPU)`);
  console.log(JSON.stringify({ name: 'seed', dataset, ...sizes, ms: seeded.ms, cpu_ms: seeded.cpu_ms }));
  const token = mintToken(root, headDb);
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // What a client sends: undici's fetch and browsers over http send `gzip, deflate` (recsvc
  // gzips recommendation pages for them; the plain server ignores it). BENCH_ACCEPT_ENCODING=
  // (empty) sends none, as the bench did before 2026-11-28.
  const acceptEncoding = process.env.BENCH_ACCEPT_ENCODING ?? 'gzip, deflate';
  const headers = (t) => ({
    authorization: `Bearer ${t}`,
    'content-type': 'application/json',
    ...(acceptEncoding === '' ? {} : { 'accept-encoding': acceptEncoding }),
  });

  if (dataset === 'large') {
    const head = await startServer('head', 'recsvc', headDb, root, nodeArgs);
    head.headers = headers(token);
    const rand = random(1);
    const rssBefore = rssMb(head);
    await measure({
      name: 'recommendations_random_users_large',
      url: head.base,
      connections: 10,
      duration,
      headers: head.headers,
      requestFactory: () => ({
        method: 'GET',
        path: `/api/v1/recommendations?user_id=user${1 + Math.floor(rand() * sizes.users)}&limit=20`,
      }),
      cpu: { server: head.child.pid },
    });
    console.log(JSON.stringify({ name: 'server_rss_mb', dataset, after_start: rssBefore, after_run: rssMb(head) }));
    console.log(JSON.stringify({ name: 'server_memory_after_run', ...(await memoryBreakdown(head)) }));
  } else {
    let ref;
    if (compareRef) {
      const built = buildRef(compareRef);
      const refDb = join(dir, 'ref.db');
      // The ref seeds with its own generator: its posts (and their ids) can differ from HEAD's.
      const refSeeded = seed(built.where, refDb, anchorMs);
      ref = { where: built.where, db: refDb, token: mintToken(built.where, refDb), postIds: refSeeded.post_ids };
      refWorktree = built.where;
    }
    (await startServer('head', 'recsvc', copyDatabase(headDb, join(dir, 'head-served.db')), root, nodeArgs)).headers = headers(token);
    if (ref) Object.assign(await startServer('ref', 'recsvc', ref.db, ref.where), { headers: headers(ref.token), postIds: ref.postIds });
    (await startServer('plain', 'plain', copyDatabase(headDb, join(dir, 'plain.db')))).headers = headers(token);
    if (aa === 'plain') (await startServer('plain_aa', 'plain', copyDatabase(headDb, join(dir, 'plain-aa.db')))).headers = headers(token);
    if (Object.keys(variantEnv).length > 0) {
      const variantDb = copyDatabase(headDb, join(dir, 'variant.db'));
      (await startServer('variant', 'recsvc', variantDb, root, nodeArgs, variantEnv)).headers = headers(token);
    }
    if (aa === 'recsvc') {
      (await startServer('head_aa', 'recsvc', copyDatabase(headDb, join(dir, 'head-aa.db')), root, nodeArgs)).headers = headers(token);
    }
    console.error(`servers: ${servers.map((s) => `${s.label} (pid ${s.child.pid})`).join(', ')}; pinned: ${pinned}`);
    await runDefault(postIds);
    console.log(JSON.stringify({ name: 'server_rss_mb', ...Object.fromEntries(servers.map((s) => [s.label, rssMb(s)])) }));
    for (const server of servers.filter((s) => s.kind === 'recsvc'))
      console.log(JSON.stringify({ name: 'ranking_fits', server: server.label, ...backgroundJobs(server) }));
    printSummary();
  }
} finally {
  for (const { child } of servers) {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }
  rmSync(dir, { recursive: true, force: true });
  if (refWorktree)
    console.error(`(the build of ${compareRef} stays in ${refWorktree} for the next run; git worktree remove --force it when done)`);
}

/** The default data set's phases: warm-up, every user's first request, recommendations, interactions. */
async function runDefault(postIds) {
  const user = (next) => `user${1 + Math.floor(next() * sizes.users)}`;
  const recommendations = (next) => ({ method: 'GET', path: `/api/v1/recommendations?user_id=${user(next)}&limit=20` });
  const actions = ['favorite', 'favorite', 'bookmark', 'reblog'];
  // The same draws for every server; a server seeded by another build (--compare) maps each
  // draw to its own posts, by the same position in its list of ids.
  const interactionOn = (server) => (next) => {
    const ids = server?.postIds ?? postIds;
    return interactionWith(next, ids);
  };
  const interactionWith = (next, ids) => ({
    method: 'POST',
    path: '/api/v1/interactions',
    body: JSON.stringify({
      user_id: user(next),
      post_id: ids[Math.floor(next() * ids.length)],
      action_type: actions[Math.floor(next() * actions.length)],
    }),
  });

  // The process's own warm-up (JIT, first touches of the database's pages), reported but not
  // compared: 2,000 requests for users who are not in the data set (a new user's list), so that
  // every user of the data set is still asked for the first time in the cold phase.
  for (const server of servers) {
    let n = 0;
    await measure({
      name: 'recommendations_warmup',
      url: server.base,
      connections: 10,
      amount: 2_000,
      headers: server.headers,
      requestFactory: () => ({ method: 'GET', path: `/api/v1/recommendations?user_id=newcomer${++n}&limit=20` }),
      cpu: { server: server.child.pid },
      quiet: true,
    });
  }
  // Cold: every user's first request, the users split into one slice per round, each slice asked
  // of every server in turn (timed to its last response). A user's first request builds their
  // profile from the database; afterwards it lives in memory.
  const slice = Math.ceil(sizes.users / rounds);
  const sliceSize = (round) => Math.max(0, Math.min(slice, sizes.users - round * slice));
  await phase(
    'recommendations_first_request_per_user',
    10,
    (round) => {
      let i = 0;
      return () => ({
        method: 'GET',
        path: `/api/v1/recommendations?user_id=user${1 + round * slice + (i++ % sliceSize(round))}&limit=20`,
      });
    },
    { amountPerRound: sliceSize },
  );
  if (only === 'first') return;
  if (process.env.BENCH_SETTLE_MS) await new Promise((r) => setTimeout(r, Number(process.env.BENCH_SETTLE_MS)));
  if (only !== 'interactions') {
    // Recommendations as served: random users, each list cached per user for 30 s (dropped at once
    // by that user's interactions, feedback or preference changes), so these runs mix full rankings
    // with cache hits.
    await phase('recommendations', 10, () => recommendations);
    await phase('recommendations', 50, () => recommendations);
  }
  if (only !== 'recommendations') {
    // Warm-up of the write path (JIT, first touches of the index pages), not compared.
    for (const server of servers) {
      const next = random(7);
      await measure({
        name: 'interactions_warmup',
        url: server.base,
        connections: 10,
        amount: 2_000,
        headers: server.headers,
        requestFactory: () => interactionOn(server)(next),
        quiet: true,
      });
    }
    await phase('interactions', 10, (_round, server) => interactionOn(server));
    await phase('interactions', 50, (_round, server) => interactionOn(server));
  }
}
