#!/usr/bin/env node
// The offline code paths on a million users inside one process (no CLI start-up, no file
// I/O): the figures the unit tests used to assert as timings, which depend on the machine
// and so belong here. Goals: bucketing < 5 s, parsing a chunked CSV < 3 s. Run after
// `npm run build` (it imports dist/).
import { createAssigner } from '../../dist/src/experiments/assignment.js';
import { createUserCsvParser, parseChunks, USER_CSV_HEADER } from '../../dist/src/experiments/io/export-format.js';
import { createRandom } from '../../dist/src/random.js';

const USERS = 1_000_000;
const variants = [
  { name: 'control', traffic_allocation: 50 },
  { name: 'treatment', traffic_allocation: 50 },
];

function bucketing() {
  const assign = createAssigner(5, variants);
  let enrolled = 0;
  for (let i = 0; i < USERS; i++) if (assign(i).variant !== undefined) enrolled++;
  if (enrolled !== USERS) throw new Error(`bucketing enrolled ${enrolled} of ${USERS}`);
}

async function csvParsing() {
  const random = createRandom(1);
  const block = Array.from({ length: 1000 }, (_, i) => {
    const impressions = Math.floor(random() * 30);
    const clicks = Math.floor(impressions * random() * 0.2);
    return `user${i},${i % 2 === 0 ? 'control' : 'treatment'},${impressions},${clicks},1,2,${Math.floor(random() * 900)},${i % 2},1,0\n`;
  }).join('');
  async function* chunks() {
    yield `${USER_CSV_HEADER}\n`;
    for (let i = 0; i < USERS / 1000; i++) yield block;
  }
  const parsed = await parseChunks(chunks(), createUserCsvParser('bench.csv', { variants: ['control', 'treatment'] }));
  if (parsed.users !== USERS) throw new Error(`parsed ${parsed.users} of ${USERS} rows`);
}

async function measure(name, goalSeconds, run) {
  const start = process.hrtime.bigint();
  await run();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { case: name, seconds: +seconds.toFixed(2), goal_seconds: goalSeconds, met: seconds < goalSeconds };
}

const rows = [
  await measure('createAssigner on 1,000,000 numeric ids', 5, bucketing),
  await measure('parseChunks of a 1,000,000-row CSV (1,000 chunks)', 3, csvParsing),
];
console.table(rows);
if (process.argv.includes('--json')) console.log(JSON.stringify(rows));
