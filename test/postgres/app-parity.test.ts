/**
 * The same requests answer the same on SQLite and on PostgreSQL: one scenario (posts,
 * recommendations, interactions, feedback, settings, an experiment served to users who
 * send events, its status, metrics, analysis, gates and export) runs through the real app
 * on each backend under the same clock, and every answer must be equal, after removing
 * only what differs by nature (request ids, process figures).
 *
 * Posts are stored through the service's own row mapping and kysely, not POST
 * /api/v1/posts/batch: that route's multi-row insert (server/platform/db/bulk-insert.ts) is still
 * written with SQLite's `?` placeholders (see the report of issue 14's first slice).
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../server/app.js';
import { createPrivacyPolicy } from '../../server/privacy/privacy.feature.js';
import { createToken } from '../../server/platform/auth/token.service.js';
import { openDatabase, type DatabaseHandle } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { statusRows } from '../../server/posts/post.mapper.js';
import { makeStatus } from '../helpers/mastodon-fixtures.js';
import { experimentBody } from '../server/experiments/experiment-bodies.js';
import { createTestSchema, postgresUnavailable, suiteTitle, type TestSchema } from './postgres-test-database.js';

const PARITY_PSEUDONYM_KEY = '11'.repeat(32);

const unavailable = await postgresUnavailable();

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const EXPERIMENTS = '/api/v1/analytics/experiments';
const USERS = Array.from({ length: 12 }, (_, i) => `u${String(i).padStart(2, '0')}`);

interface Answer {
  step: string;
  status: number;
  body: unknown;
}

/** Stores the scenario's posts (through the service's own mapping) before the app loads its candidates. */
async function seedPosts(database: DatabaseHandle): Promise<void> {
  const statuses = Array.from({ length: 30 }, (_, i) =>
    makeStatus({
      n: i + 1,
      author: `author${i % 5}`,
      ageHours: 1 + i * 0.5,
      favourites: (i * 7) % 11,
      tags: [i % 2 ? 'cats' : 'news'],
      nowMs: T0,
    }),
  );
  for (const status of statuses) {
    const rows = statusRows(status, T0, true);
    for (const account of rows.accounts) {
      await database.db
        .insertInto('accounts')
        .values(account)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    }
    for (const post of rows.posts) {
      await database.db.insertInto('posts').values(post.row).execute();
      for (const tag of post.tags)
        await database.db.insertInto('post_tags').values({ post_id: post.row.id, tag, sort_key: post.row.sort_key }).execute();
    }
  }
}

/** Runs the scenario on `database`; each request at its own instant of the shared clock. */
async function runScenario(database: DatabaseHandle): Promise<Answer[]> {
  let tick = 0;
  const clock = (): void => void vi.setSystemTime(T0 + ++tick * 1_000);
  clock();
  await migrateToLatest(database.db);
  await seedPosts(database);
  // One pseudonym key for both backends (as every instance of one deployment shares it), so
  // the analytics tables, and the export ordered by pseudonym, can be compared row for row.
  const privacy = await createPrivacyPolicy(database.db, { pseudonymKey: PARITY_PSEUDONYM_KEY });
  const app: FastifyInstance = await buildApp({ database, privacy, rateLimit: null });
  await app.ready();
  const answers: Answer[] = [];
  const tokens = new Map<string, string>();
  const headersOf = async (user: string | null): Promise<Record<string, string>> => {
    const key = user ?? '(admin)';
    let token = tokens.get(key);
    if (token === undefined) {
      const scopes = user === null ? (['read', 'write', 'admin'] as const) : (['read', 'write'] as const);
      token = (await createToken(database.db, { scopes: [...scopes], tier: 'authenticated', userId: user, ttlSeconds: 3600 })).token;
      tokens.set(key, token);
    }
    return { authorization: `Bearer ${token}` };
  };
  const request = async (
    step: string,
    user: string | null,
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    payload?: object,
    concurrent = false,
  ): Promise<Answer> => {
    // Concurrent requests share one instant: when each handler reads the clock is up to the scheduler.
    if (!concurrent) clock();
    const res = await app.inject({ method, url, headers: await headersOf(user), ...(payload ? { payload } : {}) });
    const answer = {
      step,
      status: res.statusCode,
      body: normalise(
        res.headers['content-type']?.toString().startsWith('application/json') ? res.json() : res.body,
        /^(interaction|repeated interaction|feedback|burst)/.test(step),
      ),
    };
    answers.push(answer);
    return answer;
  };
  try {
    await request('health', null, 'GET', '/api/v1/health');
    await request('posts', null, 'GET', '/api/v1/posts?limit=10');
    await request('first recommendations', 'u00', 'GET', '/api/v1/recommendations?user_id=u00&limit=8');
    for (const [i, user] of USERS.slice(0, 6).entries()) {
      await request(`interaction ${user}`, user, 'POST', '/api/v1/interactions', {
        user_id: user,
        post_id: makeStatus({ n: 1 + i * 3 }).id,
        action_type: i % 2 ? 'reblog' : 'favorite',
      });
    }
    await request('repeated interaction', 'u00', 'POST', '/api/v1/interactions', {
      user_id: 'u00',
      post_id: makeStatus({ n: 1 }).id,
      action_type: 'favorite',
    });
    // Concurrent writes share group-committed transactions (a savepoint per request); some
    // name a post that does not exist and must fail alone, with a 404.
    clock();
    const burst = answers.length;
    await Promise.all(
      USERS.map((user, i) =>
        request(
          `burst ${user}`,
          user,
          'POST',
          '/api/v1/interactions',
          { user_id: user, post_id: i % 4 === 3 ? '999' : makeStatus({ n: 2 + i }).id, action_type: 'bookmark' },
          true,
        ),
      ),
    );
    answers.splice(burst, USERS.length, ...answers.slice(burst).sort((a, b) => a.step.localeCompare(b.step)));
    await request('feedback', 'u01', 'POST', '/api/v1/recommendations/feedback', {
      user_id: 'u01',
      post_id: makeStatus({ n: 5 }).id,
      feedback: 'less',
    });
    await request('recommendations after', 'u00', 'GET', '/api/v1/recommendations?user_id=u00&limit=8');
    await request('settings', 'u02', 'PATCH', '/api/v1/settings', { experiments_opt_out: true });
    await request('settings read', 'u02', 'GET', '/api/v1/settings');
    const created = await request(
      'experiment',
      null,
      'POST',
      EXPERIMENTS,
      experimentBody({ minimum_sample_size: 3, gates: { min_user_satisfaction: 0.5 } }),
    );
    const id = (created.body as { data?: { id?: number } }).data?.id;
    await request('start', null, 'POST', `${EXPERIMENTS}/${id}/start`);
    for (const user of USERS) {
      const served = await request(`served ${user}`, user, 'GET', `/api/v1/recommendations?user_id=${user}&limit=5`);
      const list = Array.isArray(served.body) ? (served.body as { id: string }[]) : [];
      const session = `s-${user}`;
      await request(`events ${user}`, user, 'POST', '/api/v1/analytics/events', {
        events: [
          { type: 'session_start', user_id: user, session_id: session },
          ...list.slice(0, 2).map((p) => ({ type: 'view', user_id: user, post_id: p.id, session_id: session })),
          ...list.slice(0, user.charCodeAt(2) % 3).map((p) => ({ type: 'click', user_id: user, post_id: p.id, session_id: session })),
          { type: 'session_end', user_id: user, session_id: session },
        ],
      });
    }
    for (const path of ['', '/status', '/metrics', '/analysis', '/gates', '/export'])
      await request(`experiment${path}`, null, 'GET', `${EXPERIMENTS}/${id}${path}`);
    await request('pause', null, 'POST', `${EXPERIMENTS}/${id}/pause`);
    await request('experiments', null, 'GET', EXPERIMENTS);
  } finally {
    await app.close();
  }
  return answers;
}

/** Keys whose values differ between any two runs: request ids, the process's own figures, wall-clock latencies. */
const BY_NATURE = new Set([
  'request_id',
  'uptime_seconds',
  'memory_usage_mb',
  'cpu_percent',
  'latency_ms',
  'latency_ms_p95',
  'latency_histogram',
  'response_time_p95',
]);

/**
 * Drops what differs by nature: the keys above, the measured value of the response-time
 * gate, and the generated ids of interactions and feedback (`idKey`). An export (JSON
 * lines) is compared line by line.
 */
function normalise(value: unknown, idKey = false): unknown {
  if (Array.isArray(value)) return value.map((v) => normalise(v, idKey));
  if (typeof value === 'string')
    return value.includes('\n{') ? value.split('\n').map((line) => (line ? normalise(JSON.parse(line)) : line)) : value;
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  const responseTimeGate = (value as { gate?: unknown }).gate === 'max_response_time_p95';
  for (const [key, inner] of Object.entries(value)) {
    if (BY_NATURE.has(key) || (idKey && key === 'id') || (responseTimeGate && ['value', 'ci_low', 'ci_high', 'verdict'].includes(key)))
      continue;
    out[key] = normalise(inner, idKey);
  }
  return out;
}

/** Where `a` and `b` differ (paths), numbers equal to 12 significant digits (sums in another order). */
function differences(a: unknown, b: unknown, path = ''): string[] {
  if (typeof a === 'number' && typeof b === 'number') {
    return Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b)) ? [] : [`${path}: ${a} vs ${b}`];
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return Object.is(a, b) ? [] : [`${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`];
  }
  if (Array.isArray(a) !== Array.isArray(b)) return [`${path}: array vs object`];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].flatMap((key) =>
    differences((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`),
  );
}

describe.skipIf(unavailable !== undefined)(suiteTitle('the same requests answer the same as on SQLite', unavailable), () => {
  let schema: TestSchema;
  let sqlite: Answer[];
  let postgres: Answer[];

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    schema = await createTestSchema();
    const onSqlite = await openDatabase(':memory:');
    try {
      sqlite = await runScenario(onSqlite);
    } finally {
      await onSqlite.close();
    }
    const onPostgres = await openDatabase(schema.url);
    try {
      postgres = await runScenario(onPostgres);
    } finally {
      await onPostgres.close();
    }
  }, 120_000);

  afterAll(async () => {
    vi.useRealTimers();
    await schema?.drop();
  });

  it('the scenario does what it says on SQLite (so that equal answers mean something)', () => {
    const status = (step: string) => sqlite.find((a) => a.step === step)?.status;
    expect(status('first recommendations')).toBe(200);
    expect((sqlite.find((a) => a.step === 'first recommendations')?.body as unknown[]).length).toBe(8);
    expect(status('interaction u00')).toBe(201);
    expect(status('repeated interaction')).toBe(200);
    expect(status('burst u02')).toBe(201);
    expect(status('burst u03')).toBe(404);
    expect(status('experiment')).toBe(201);
    expect(sqlite.filter((a) => a.step.startsWith('events ')).every((a) => a.status === 201)).toBe(true);
    expect(status('experiment/analysis')).toBe(200);
    expect(status('experiment/export')).toBe(200);
    expect(sqlite.length).toBeGreaterThan(40);
  });

  it('PostgreSQL gives every answer SQLite gives, step by step', () => {
    expect(postgres.map((a) => a.step)).toEqual(sqlite.map((a) => a.step));
    const differing = postgres.flatMap((answer, i) => differences(answer, sqlite[i], answer.step));
    expect(differing).toEqual([]);
  });
});
