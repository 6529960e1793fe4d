#!/usr/bin/env node
// Cold start of the CLI: wall time of whole processes, median and p90 of N runs each.
// `node -e 0` is the floor (Node itself). Run after `npm run build`.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/recsvc', import.meta.url));
const RUNS = Number(process.env.RUNS ?? 20);
const cases = [
  ['node -e 0 (floor)', ['-e', '0']],
  ['recsvc --version', [BIN, '--version']],
  ['recsvc bucket u1 --experiment 1 --allocations a=50,b=50', [BIN, 'bucket', 'u1', '--experiment', '1', '--allocations', 'a=50,b=50']],
  ['recsvc --help', [BIN, '--help']],
];

function time(args) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const rows = [];
for (const [name, args] of cases) {
  time(args); // warm the file cache
  const samples = Array.from({ length: RUNS }, () => time(args)).sort((a, b) => a - b);
  rows.push({ command: name, runs: RUNS, median_ms: +quantile(samples, 0.5).toFixed(1), p90_ms: +quantile(samples, 0.9).toFixed(1) });
}
console.table(rows);
if (process.argv.includes('--json')) console.log(JSON.stringify(rows));
