#!/usr/bin/env node
// Offline `experiment analyze` and `bucket` on a million users: wall time and peak RSS
// of the CLI process (GNU time's "Maximum resident set size" when /usr/bin/time exists,
// else the child's resource usage as reported by a small wrapper). Targets: < 5 s, < 300 MB.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, createReadStream, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const BIN = here('../../bin/recsvc');
const USERS = Number(process.env.USERS ?? 1_000_000);
const dir = join(tmpdir(), 'recsvc-bench-cli');
mkdirSync(dir, { recursive: true });
const csv = join(dir, `users-${USERS}.csv`);
const gz = `${csv}.gz`;
const ids = join(dir, `ids-${USERS}.txt`);
if (!existsSync(csv)) execFileSync(process.execPath, [here('./generate-users.js'), String(USERS), csv], { stdio: 'inherit' });
if (!existsSync(gz)) await pipeline(createReadStream(csv), createGzip(), createWriteStream(gz));
if (!existsSync(ids)) execFileSync('sh', ['-c', `cut -d, -f1 ${csv} | tail -n +2 > ${ids}`]);
const gnuTime = existsSync('/usr/bin/time');

function measure(name, args, stdin) {
  const command = gnuTime ? '/usr/bin/time' : process.execPath;
  const argv = gnuTime ? ['-v', process.execPath, BIN, ...args] : [here('./rss-wrapper.js'), BIN, ...args];
  const start = process.hrtime.bigint();
  const result = spawnSync(command, argv, {
    stdio: [stdin === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'],
    input: stdin,
    maxBuffer: 1 << 26,
  });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const stderr = result.stderr.toString();
  if (result.status !== 0) throw new Error(`${name} exited ${result.status}: ${stderr}`);
  const kb = Number((/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr) ?? /maxrss_kb=(\d+)/.exec(stderr))?.[1]);
  return { case: name, seconds: +seconds.toFixed(2), peak_rss_mb: +(kb / 1024).toFixed(1) };
}

const flags = ['--allocations', 'control=50,treatment=50', '--control', 'control', '--json'];
const rows = [
  measure(`analyze --file CSV (${(statSync(csv).size / 1e6).toFixed(0)} MB)`, ['experiment', 'analyze', '--file', csv, ...flags]),
  measure(`analyze --file CSV.gz (${(statSync(gz).size / 1e6).toFixed(0)} MB)`, ['experiment', 'analyze', '--file', gz, ...flags]),
  measure('gates check --file CSV', [
    'gates',
    'check',
    '--file',
    csv,
    '--allocations',
    'control=50,treatment=50',
    '--control',
    'control',
    '--allow-inconclusive',
    '--json',
  ]),
  measure(
    'bucket - (stdin ids) --json',
    ['bucket', '-', '--experiment', '1', '--allocations', 'control=50,treatment=50', '--json'],
    execFileSync('cat', [ids], { maxBuffer: 1 << 26 }),
  ),
];
console.log(`${USERS.toLocaleString('en-US')} users; timing ${gnuTime ? 'with /usr/bin/time -v' : 'with the rss wrapper'}`);
console.table(rows);
if (process.argv.includes('--json')) console.log(JSON.stringify(rows));
