// Memory a deployment needs (see bench/README.md): seeds a temporary database with
// MEMORY_POSTS posts (default 100,000) and MEMORY_USERS users (default 10,000), builds
// the app in this process (node --expose-gc), asks every user's recommendations once (so
// every profile, result list and status cache fills), and prints one JSON line with the
// V8 heap and RSS after a full GC: empty app, pool loaded, after the warm-up, plus the
// cache gauges. Run after `npx tsc -p tsconfig.build.json`:
//   node --expose-gc bench/memory.js
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../dist/server/app.js';
import { createToken } from '../dist/server/platform/auth/token.service.js';
import { openSqlite } from '../dist/server/platform/db/connection.js';
import { migrateToLatest } from '../dist/server/platform/db/migrate.js';
import { seedDemo } from '../dist/server/demo/demo.seed.js';

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
const posts = Number(process.env.MEMORY_POSTS ?? 100_000);
const users = Number(process.env.MEMORY_USERS ?? 10_000);
const sizes = { posts, users, authors: Math.max(50, Math.round(posts / 20)), interactions: users * 30 };

const mb = (bytes) => Math.round(bytes / 1048576);
function measure() {
  globalThis.gc();
  const m = process.memoryUsage();
  return { heap_mb: mb(m.heapUsed), rss_mb: mb(m.rss), external_mb: mb(m.external) };
}

const dir = mkdtempSync(join(tmpdir(), 'recsvc-memory-'));
try {
  const seeding = openSqlite(join(dir, 'memory.db'));
  await migrateToLatest(seeding.db);
  await seedDemo(seeding, sizes);
  await seeding.close();
  const base = measure();
  const database = openSqlite(join(dir, 'memory.db'));
  const app = await buildApp({ database, rateLimit: null, loadShedding: null, logger: false });
  await app.ready();
  const loaded = measure();
  const { token } = await createToken(database.db, { scopes: ['read', 'write', 'admin'], tier: 'premium', userId: null, ttlSeconds: 3600 });
  const headers = { authorization: `Bearer ${token}` };
  for (let u = 1; u <= users; u++) {
    const res = await app.inject({ method: 'GET', url: `/api/v1/recommendations?user_id=user${u}&limit=20`, headers });
    if (res.statusCode !== 200) throw new Error(`user${u}: ${res.statusCode} ${res.body}`);
    // Give the event loop a turn: light-my-request finishes each response's writes in
    // setImmediate callbacks, and a loop of awaits alone would keep every response (two
    // copies of its body) alive until the end, which once read as 75 KB per warm user.
    await new Promise(setImmediate);
  }
  const warm = measure();
  const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const caches = Object.fromEntries(
    [...metrics.matchAll(/^service_cache_(entries|bytes)\{cache="([a-z_]+)"\} (\d+)/gm)].map(([, what, cache, value]) => [
      `${cache}_${what}`,
      Number(value),
    ]),
  );
  console.log(JSON.stringify({ sizes, before_app: base, pool_loaded: loaded, after_every_user: warm, caches }));
  await app.close();
  await database.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
