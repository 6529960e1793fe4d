// Warm hits alone, paired (issue 27 item 2; bench/README.md): this checkout's `recsvc serve`, an
// earlier built checkout (optional: the build `node bench/run.js --compare <ref>` leaves in /tmp)
// and the plain server, pinned to core 0 on copies of one seeded file. Each server gets every
// user's first request once (5,000), then per round and server (order rotated): USERS users primed,
// then DURATION s of random requests among them — all cache hits for recsvc, while the plain server
// runs its SELECT each time. Prints one line per run and the per-round ratios.
//   node bench/warm-hits.js [<built checkout of an earlier commit>]
// USERS (500), DURATION (5), ROUNDS (3), CONNS (10,50).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, measure, waitForHealth } from './harness.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const refCheckout = process.argv[2];
const dir = mkdtempSync(join(tmpdir(), 'recsvc-warm-hits-'));
const db = join(dir, 'seed.db');
execFileSync(
  process.execPath,
  [
    join(root, 'bench', 'seed.js'),
    root,
    db,
    JSON.stringify({ posts: 10_000, interactions: 200_000, users: 5_000, authors: 500 }),
    String(Date.now()),
  ],
  { stdio: ['ignore', 'ignore', 'inherit'], maxBuffer: 1 << 28 },
);
const pinned = spawnSync('taskset', ['-V']).status === 0;
const pin = (command) => (pinned ? ['taskset', ['-c', '0', ...command]] : [command[0], command.slice(1)]);
const USERS = Number(process.env.USERS ?? 500),
  DURATION = Number(process.env.DURATION ?? 5),
  ROUNDS = Number(process.env.ROUNDS ?? 3);
const CONNS = (process.env.CONNS ?? '10,50').split(',').map(Number);
if (pinned) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
const servers = [];
async function start(label, checkout, kind) {
  const file = join(dir, `${label}.db`);
  copyFileSync(db, file);
  const token = JSON.parse(
    execFileSync(
      process.execPath,
      [join(checkout ?? root, 'bin', 'recsvc'), 'token', 'create', '--scopes', 'read,write,admin', '--db', file, '--json'],
      { encoding: 'utf8' },
    ),
  ).token;
  const port = await freePort();
  const cmd =
    kind === 'plain'
      ? [process.execPath, join(root, 'bench', 'plain-server.js'), file, String(port)]
      : [
          process.execPath,
          `${checkout}/bin/recsvc`,
          'serve',
          '--rate-limit',
          'off',
          '--db',
          file,
          '--port',
          String(port),
          '--log-level',
          'warn',
        ];
  const [program, args] = pin(cmd);
  const child = spawn(program, args, { stdio: 'ignore' });
  const s = { label, child, base: `http://127.0.0.1:${port}`, headers: { authorization: `Bearer ${token}` } };
  servers.push(s);
  await waitForHealth(s.base, child, 120);
  return s;
}
await start('head', root, 'recsvc');
if (refCheckout) await start('ref', refCheckout, 'recsvc');
await start('plain', null, 'plain');
/** Asks `server` for the first page of each of the first `users` users, 10 at a time (not reported). */
async function askEach(server, name, users) {
  let i = 0;
  await measure({
    name,
    url: server.base,
    connections: 10,
    amount: users,
    headers: server.headers,
    requestFactory: () => ({ method: 'GET', path: `/api/v1/recommendations?user_id=user${1 + (i++ % users)}&limit=20` }),
    quiet: true,
  });
}
for (const s of servers) await askEach(s, 'cold', 5000);
const out = {};
for (const c of CONNS)
  for (let r = 0; r < ROUNDS; r++) {
    const order = servers.map((_, i) => servers[(i + r) % servers.length]);
    for (const s of order) {
      await askEach(s, 'prime', USERS);
      let seed = 1000 + r;
      const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
      const line = await measure({
        name: 'hits',
        url: s.base,
        connections: c,
        duration: DURATION,
        headers: s.headers,
        requestFactory: () => ({ method: 'GET', path: `/api/v1/recommendations?user_id=user${1 + Math.floor(rnd() * USERS)}&limit=20` }),
        cpu: { server: s.child.pid },
        quiet: true,
      });
      ((out[c] ??= {})[s.label] ??= []).push(line);
      console.log(
        JSON.stringify({
          c,
          round: r + 1,
          server: s.label,
          rps: line.requests_per_sec,
          p99: line.p99,
          cpu: line.server_cpu_ms_per_request,
          errors: line.errors,
        }),
      );
    }
  }
const med = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const r2 = (x) => Math.round(x * 100) / 100;
for (const c of CONNS)
  for (const [a, b] of [
    ['head', 'plain'],
    ['head', 'ref'],
    ['ref', 'plain'],
  ]) {
    const A = out[c][a],
      B = out[c][b];
    if (!A || !B) continue;
    const rps = A.map((x, i) => r2(x.requests_per_sec / B[i].requests_per_sec));
    const cpu = A.map((x, i) => r2(B[i].server_cpu_ms_per_request / x.server_cpu_ms_per_request));
    const p99 = A.map((x, i) => r2(x.p99 / B[i].p99));
    console.log(
      `c=${c} ${a}/${b}: req/s ${rps.join(' ')} (median ${r2(med(rps))})  cpu ${cpu.join(' ')} (${r2(med(cpu))})  p99 ${p99.join(' ')} (${r2(med(p99))})`,
    );
  }
for (const s of servers) {
  s.child.kill('SIGTERM');
  await new Promise((r) => s.child.once('exit', r));
}
rmSync(dir, { recursive: true, force: true });
