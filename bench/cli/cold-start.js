#!/usr/bin/env node
// Cold start of the CLI (issue 27): wall time of whole processes against a bare `node -e 0`,
// paired run by run. Each iteration runs the floor and every command once, in an order that
// rotates per iteration, and the ratio command / floor is taken within the iteration, so a
// machine that slows down for a while moves both. Prints each command's median time and the
// median (and p10–p90) of its per-iteration ratios. Goal: under 2x for --version, an offline
// bucket and `gates check --file`. Run after `npm run build`; RUNS (default 20) iterations.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/recsvc', import.meta.url));
const RUNS = Number(process.env.RUNS ?? 20);
const dir = mkdtempSync(join(tmpdir(), 'recsvc-cold-'));
const csv = join(dir, 'users.csv');
// 200 users, 100 per variant: a real but small offline input.
const header = 'user_id,variant,impressions,clicks,interactions,sessions,session_seconds,bounces,feedback_positive,feedback_negative';
const rows = Array.from(
  { length: 200 },
  (_, i) => `user${i},${i % 2 ? 'treatment' : 'control'},${20 + (i % 7)},${2 + (i % 3)},1,2,300,0,1,0`,
);
writeFileSync(csv, `${header}\n${rows.join('\n')}\n`);

const floor = ['node -e 0 (floor)', ['-e', '0']];
const cases = [
  ['recsvc --version', [BIN, '--version']],
  ['recsvc bucket u1 --experiment 1 --allocations a=50,b=50', [BIN, 'bucket', 'u1', '--experiment', '1', '--allocations', 'a=50,b=50']],
  [
    'recsvc gates check --file users.csv (200 users)',
    [BIN, 'gates', 'check', '--file', csv, '--allocations', 'control=50,treatment=50', '--control', 'control', '--allow-inconclusive'],
    [0, 1],
  ],
  ['recsvc --help', [BIN, '--help']],
];

function time([name, args, okCodes = [0]]) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  if (!okCodes.includes(result.status)) throw new Error(`${name} exited ${result.status}: ${result.stderr}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const all = [floor, ...cases];
try {
  for (const c of all) time(c); // warm the file cache
  const samples = all.map(() => []);
  for (let run = 0; run < RUNS; run++) {
    for (let k = 0; k < all.length; k++) {
      const i = (k + run) % all.length;
      samples[i].push(time(all[i]));
    }
  }
  const table = all.map(([name], i) => {
    const sorted = [...samples[i]].sort((a, b) => a - b);
    const ratios = samples[i].map((ms, run) => ms / samples[0][run]).sort((a, b) => a - b);
    return {
      command: name,
      runs: RUNS,
      median_ms: +quantile(sorted, 0.5).toFixed(1),
      p90_ms: +quantile(sorted, 0.9).toFixed(1),
      ratio_to_node_median: +quantile(ratios, 0.5).toFixed(2),
      ratio_p10: +quantile(ratios, 0.1).toFixed(2),
      ratio_p90: +quantile(ratios, 0.9).toFixed(2),
    };
  });
  console.table(table);
  if (process.argv.includes('--json')) console.log(JSON.stringify(table));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
