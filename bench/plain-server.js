// The benchmark's baseline (issue 27): a hand-written fastify + better-sqlite3 server doing the
// bench's work on the same tables without the product's features (no auth check, no schemas,
// no privacy levels, consent, experiments, profiles or caches):
//   POST /api/v1/interactions     one INSERT (idempotent per user, post and action), autocommit
//   GET  /api/v1/recommendations  a per-user top 20 computed by one SELECT each time: posts of the
//                                 user's 10 strongest authors, unseen, by affinity + engagement
//   GET  /health
// Same SQLite settings as `recsvc serve` (WAL, synchronous NORMAL, foreign keys, 64 MB memory map).
// Usage: node bench/plain-server.js <database> <port>
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { randomUUID } from 'node:crypto';

const [dbPath, port] = process.argv.slice(2);
if (!dbPath || !port) {
  console.error('usage: node bench/plain-server.js <database> <port>');
  process.exit(2);
}

const db = new Database(dbPath);
db.pragma('busy_timeout = 5000');
db.pragma('mmap_size = 67108864');
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');

const insert = db.prepare(
  `INSERT INTO interactions (id, user_id, post_id, action_type, context_json, created_at, created_at_ms)
   VALUES (?, ?, ?, ?, NULL, ?, ?) ON CONFLICT (user_id, post_id, action_type) DO NOTHING`,
);
const top20 = db.prepare(
  `WITH authors AS (
     SELECT target, score FROM user_affinities WHERE user_id = ? AND kind = 'author' ORDER BY score DESC LIMIT 10
   )
   SELECT p.id, p.account_id, p.url, p.content, p.created_at, p.favourites_count, p.reblogs_count, p.replies_count,
          authors.score + 0.01 * (p.favourites_count + 2 * p.reblogs_count) AS score
   FROM authors JOIN posts p ON p.account_id = authors.target
   WHERE p.id NOT IN (SELECT post_id FROM interactions WHERE user_id = ?)
   ORDER BY score DESC LIMIT 20`,
);

const app = Fastify({ logger: false });
app.get('/health', async () => ({ status: 'ok' }));
app.get('/api/v1/recommendations', async (request, reply) => {
  const userId = request.query.user_id;
  if (typeof userId !== 'string' || userId === '') return reply.code(400).send({ error: 'user_id is required' });
  const rows = top20.all(userId, userId);
  return rows.map((row) => ({
    id: row.id,
    score: row.score,
    reason: 'author',
    status: {
      id: row.id,
      url: row.url,
      content: row.content,
      created_at: row.created_at,
      account: { id: row.account_id },
      favourites_count: row.favourites_count,
      reblogs_count: row.reblogs_count,
      replies_count: row.replies_count,
    },
  }));
});
app.post('/api/v1/interactions', async (request, reply) => {
  const body = request.body ?? {};
  const { user_id, post_id, action_type } = body;
  if (typeof user_id !== 'string' || typeof post_id !== 'string' || typeof action_type !== 'string') {
    return reply.code(400).send({ error: 'user_id, post_id and action_type are required' });
  }
  const now = Date.now();
  const id = randomUUID();
  const createdAt = new Date(now).toISOString();
  let changes;
  try {
    changes = insert.run(id, user_id, post_id, action_type, createdAt, now).changes;
  } catch (error) {
    if (error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return reply.code(404).send({ error: 'post not found' });
    throw error;
  }
  return reply.code(changes > 0 ? 201 : 200).send({ data: { id, user_id, post_id, action_type, created_at: createdAt } });
});

await app.listen({ host: '127.0.0.1', port: Number(port) });
const stop = () => app.close().then(() => (db.close(), process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
