// Seeds a bench database with the demo generator of a given build (bench/run.js runs it as a
// child process, once per build, so an earlier commit's server gets its own migrations and
// seeding code): node bench/seed.js <checkout root> <database> <sizes JSON> <anchor ms>
// Prints one JSON line: {ms, cpu_ms, post_ids}. Works with the modules under dist/server/db
// (before issue 26) and dist/server/platform/db (after it).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [root, dbPath, sizesJson, anchor] = process.argv.slice(2);

/** The first of `candidates` (paths under the checkout's dist/server) that exists, imported. */
async function load(candidates) {
  for (const candidate of candidates) {
    const path = join(root, 'dist', 'server', candidate);
    if (existsSync(path)) return import(pathToFileURL(path).href);
  }
  throw new Error(`none of ${candidates.join(', ')} under ${root}/dist/server: build that checkout first`);
}

const { openSqlite } = await load(['platform/db/connection.js', 'db/connection.js']);
const { migrateToLatest } = await load(['platform/db/migrate.js', 'db/migrate.js']);
const { seedDemo } = await load(['demo/demo.seed.js']);

const database = openSqlite(dbPath);
await migrateToLatest(database.db);
const started = Date.now();
const cpuBefore = process.cpuUsage();
await seedDemo(database, JSON.parse(sizesJson), Number(anchor));
const ms = Date.now() - started;
// CPU time of every thread (the seeding's worker too): steadier than wall time on a shared machine.
const cpu = process.cpuUsage(cpuBefore);
const postIds = (await database.db.selectFrom('posts').select('id').orderBy('id').execute()).map((r) => r.id);
await database.close();
console.log(JSON.stringify({ ms, cpu_ms: Math.round((cpu.user + cpu.system) / 1000), post_ids: postIds }));
