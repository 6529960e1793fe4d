/**
 * Two real `recsvc serve --cluster` processes on one PostgreSQL schema and one Redis, started
 * at the same moment (their migrations race), with rate limits on and scaled down:
 * - rate limits are shared: requests alternating between A and B are counted together;
 * - assignments are shared: concurrent first requests for the same users on both record one
 *   assignment each, and each user is ranked the same through A and B;
 * - invalidations cross: a post deleted or an interaction on A changes the list B had cached;
 * - gate verdicts are shared: an experiment made on A, judged by `recsvc agents run
 *   experiment_gates` on the database, is blocked as seen through B;
 * - killing Redis mid-run turns nothing into a 5xx, health says so on both, and both serve on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createToken } from '../../server/platform/auth/token.service.js';
import { openDatabase, type DatabaseHandle } from '../../server/platform/db/connection.js';
import { MIGRATIONS } from '../../server/platform/db/migrations/index.js';
import type { ServeProcess } from '../helpers/cli.js';
import { runCli } from '../helpers/cli.js';
import { makeStatus } from '../helpers/mastodon-fixtures.js';
import { createTestSchema, type TestSchema } from '../postgres/postgres-test-database.js';
import { experimentBody } from '../server/experiments/experiment-bodies.js';
import { clusterUnavailable, pseudonymKey, startCluster, startPrivateRedis, suiteTitle, type PrivateRedis } from './cluster-env.js';

const unavailable = await clusterUnavailable();

/** Authenticated 6 a minute, the recommendations group 3, analytics 2 (the spec's limits x 0.1). */
const SCALE = 0.1;
const EXPERIMENTS = '/api/v1/analytics/experiments';
const USERS = Array.from({ length: 10 }, (_, i) => `cluster-user-${i}`);

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

describe.skipIf(unavailable !== undefined)(suiteTitle('two serve processes on one PostgreSQL and one Redis', unavailable), () => {
  let schema: TestSchema;
  let redis: PrivateRedis;
  let database: DatabaseHandle;
  let a: ServeProcess;
  let b: ServeProcess;
  const key = pseudonymKey();
  /** Every status either instance answered: none may be a 5xx. */
  const statuses: Array<{ instance: string; path: string; status: number }> = [];
  let experimentId: number;

  /** A fresh token (each has its own rate-limit counters): admin when no user is given. */
  async function token(userId: string | null = null): Promise<string> {
    const scopes = userId === null ? (['read', 'write', 'admin'] as const) : (['read', 'write'] as const);
    return (await createToken(database.db, { scopes: [...scopes], tier: 'authenticated', userId, ttlSeconds: 3600 })).token;
  }

  async function call(instance: ServeProcess, method: string, path: string, bearer?: string, body?: unknown): Promise<Answer> {
    const response = await fetch(`${instance.baseUrl}${path}`, {
      method,
      headers: {
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    statuses.push({ instance: instance === a ? 'A' : 'B', path, status: response.status });
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }

  async function recommendationIds(instance: ServeProcess, userId: string, bearer?: string): Promise<string[]> {
    const answer = await call(instance, 'GET', `/api/v1/recommendations?user_id=${userId}&limit=10`, bearer ?? (await token(userId)));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return (answer.body as Array<{ id: string }>).map((status) => status.id);
  }

  async function assignmentCount(): Promise<number> {
    const recorded = await database.db
      .selectFrom('experiment_assignments')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('experiment_id', '=', experimentId)
      .executeTakeFirstOrThrow();
    return Number(recorded.n);
  }

  /** How many lists `instance` ranked with `algorithm` (its service_recommendation_generation_seconds count). */
  async function generations(instance: ServeProcess, algorithm: string): Promise<number> {
    const text = await (await fetch(`${instance.baseUrl}/metrics`)).text();
    // Read by hand: a served process's default Node metrics may print NaN as prom-client spells it (Nan).
    const line = text
      .split('\n')
      .find((l) => l.startsWith('service_recommendation_generation_seconds_count{') && l.includes(`algorithm="${algorithm}"`));
    return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
  }

  beforeAll(async () => {
    schema = await createTestSchema();
    redis = await startPrivateRedis();
    [a, b] = (await startCluster(2, { databaseUrl: schema.url, redisUrl: redis.url, rateLimitScale: SCALE, pseudonymKey: key })) as [
      ServeProcess,
      ServeProcess,
    ];
    database = await openDatabase(schema.url);
    const statusesToStore = Array.from({ length: 40 }, (_, i) =>
      makeStatus({ n: i + 1, author: `author${i % 6}`, ageHours: 1 + i * 0.4, favourites: (i * 7) % 13, tags: [i % 2 ? 'cats' : 'news'] }),
    );
    const stored = await call(a, 'POST', '/api/v1/posts/batch', await token(), { statuses: statusesToStore });
    expect(stored.status, JSON.stringify(stored.body)).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.close();
    await redis?.kill();
    await schema?.drop();
  });

  it('starts both at once on one empty schema: the migrations are applied once, both report healthy', async () => {
    const { rows } = await sql<{ n: string | number }>`SELECT count(*) AS n FROM kysely_migration`.execute(database.db);
    expect(Number(rows[0]?.n)).toBe(Object.keys(MIGRATIONS).length);
    for (const instance of [a, b]) {
      const health = await call(instance, 'GET', '/api/v1/health');
      expect(health.body).toMatchObject({
        status: 'healthy',
        components: { database: { status: 'connected' }, redis: { status: 'connected' } },
      });
    }
    expect(a.logs()).toContain('(cluster mode)');
    expect(b.logs()).toContain('(cluster mode)');
  });

  it('counts requests alternating between A and B against one limit', async () => {
    await awayFromMinuteEnd();
    // The recommendations group: 3 a minute for this token, whichever instance counts.
    const bearer = await token('rate-user');
    const remaining: Array<string | null> = [];
    for (const instance of [a, b, a]) {
      const answer = await call(instance, 'GET', '/api/v1/recommendations?user_id=rate-user&limit=5', bearer);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-ratelimit-limit')).toBe('3');
      remaining.push(answer.headers.get('x-ratelimit-remaining'));
    }
    expect(remaining).toEqual(['2', '1', '0']);
    for (const instance of [b, a]) {
      const refused = await call(instance, 'GET', '/api/v1/recommendations?user_id=rate-user&limit=5', bearer);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // The authenticated tier: 6 a minute over routes outside any group.
    const other = await token('rate-user-2');
    const tier: Array<string | null> = [];
    for (let i = 0; i < 6; i += 1) {
      const answer = await call(i % 2 === 0 ? a : b, 'GET', '/api/v1/posts?limit=1', other);
      expect(answer.status).toBe(200);
      tier.push(answer.headers.get('x-ratelimit-remaining'));
    }
    expect(tier).toEqual(['5', '4', '3', '2', '1', '0']);
    expect((await call(b, 'GET', '/api/v1/posts?limit=1', other)).status).toBe(429);
    expect((await call(a, 'GET', '/api/v1/posts?limit=1', other)).status).toBe(429);
  }, 60_000);

  it('enrols through B the users of an experiment started on A: one assignment per user, the same ranking on both', async () => {
    const created = await call(
      a,
      'POST',
      EXPERIMENTS,
      await token(),
      experimentBody({ minimum_sample_size: 2, gates: { min_click_through_rate: 0.99 }, gate_rule: 'point' }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    experimentId = (created.body as { data: { id: number } }).data.id;
    // B served lists before (it holds "no experiment running" in memory); A starts it.
    const defaultBefore = await generations(b, 'default');
    expect((await call(a, 'POST', `${EXPERIMENTS}/${experimentId}/start`, await token())).status).toBe(200);

    // Users B serves first, before A ever saw them: B enrols them at once.
    const onlyB = ['b-first-0', 'b-first-1', 'b-first-2'];
    for (const user of onlyB) await recommendationIds(b, user);
    expect(await assignmentCount()).toBe(onlyB.length);

    // The same users' first requests on both instances at the same moment.
    const tokens = await Promise.all(USERS.map((user) => token(user)));
    const lists = await Promise.all(
      USERS.flatMap((user, i) => [recommendationIds(a, user, tokens[i]), recommendationIds(b, user, tokens[i])]),
    );
    for (let i = 0; i < USERS.length; i += 1) expect(lists[2 * i + 1], USERS[i]).toEqual(lists[2 * i]);
    const rows = await database.db
      .selectFrom('experiment_assignments')
      .select(['user_id', 'variant'])
      .where('experiment_id', '=', experimentId)
      .execute();
    expect(rows).toHaveLength(USERS.length + onlyB.length);
    expect(new Set(rows.map((row) => row.user_id)).size).toBe(USERS.length + onlyB.length);

    // B ranked every one of them with the experiment's variants, none with the default.
    expect(await generations(b, 'default')).toBe(defaultBefore);
    const onB = (await generations(b, `exp${experimentId}:control`)) + (await generations(b, `exp${experimentId}:treatment`));
    expect(onB).toBe(USERS.length + onlyB.length);
    const status = await call(b, 'GET', `${EXPERIMENTS}/${experimentId}/status`, await token());
    expect(status.body).toMatchObject({ data: { status: 'ACTIVE', users_assigned: USERS.length + onlyB.length } });
  }, 60_000);

  it('drops the list B had cached when A deletes one of its posts, or the user interacts through A', async () => {
    const user = 'cached-user';
    const first = await recommendationIds(b, user);
    expect(await recommendationIds(b, user)).toEqual(first);
    const deleted = first[0]!;
    expect((await call(a, 'DELETE', `/api/v1/posts/${deleted}`, await token())).status).toBe(200);
    const afterDelete = await eventually(
      () => recommendationIds(b, user),
      (ids) => !ids.includes(deleted),
    );
    expect(afterDelete).not.toContain(deleted);

    const favourite = afterDelete[0]!;
    const interaction = await call(a, 'POST', '/api/v1/interactions', await token(user), {
      user_id: user,
      post_id: favourite,
      action_type: 'favorite',
    });
    expect(interaction.status, JSON.stringify(interaction.body)).toBe(201);
    const afterInteraction = await eventually(
      () => recommendationIds(b, user),
      (ids) => JSON.stringify(ids) !== JSON.stringify(afterDelete),
    );
    expect(afterInteraction).not.toEqual(afterDelete);
  }, 60_000);

  it("shows through B the verdict the gate agent reached on A's experiment", async () => {
    await Promise.all(
      USERS.map(async (user, i) => {
        const instance = i % 2 === 0 ? a : b;
        const posts = await recommendationIds(instance, user);
        const session = `session-${user}`;
        const events = await call(instance, 'POST', '/api/v1/analytics/events', await token(user), {
          events: [
            { type: 'session_start', user_id: user, session_id: session },
            ...posts.slice(0, 3).map((post) => ({ type: 'view', user_id: user, post_id: post, session_id: session })),
            { type: 'session_end', user_id: user, session_id: session },
          ],
        });
        expect(events.status, JSON.stringify(events.body)).toBeLessThan(300);
      }),
    );
    const run = await runCli(['agents', 'run', 'experiment_gates', '--db', schema.url, '--json'], { env: { RECSVC_PSEUDONYM_KEY: key } });
    expect(run.code, run.stderr).toBe(0);
    const gates = await call(b, 'GET', `${EXPERIMENTS}/${experimentId}/gates`, await token());
    expect(gates.status).toBe(200);
    const treatment = (gates.body as { data: { variants: Array<{ name: string; verdict: string; blocked: boolean }> } }).data.variants.find(
      (variant) => variant.name === 'treatment',
    );
    expect(treatment).toMatchObject({ verdict: 'fail', blocked: true });

    // B forgot its cached experiment when the agent's block was committed (migration 0027's
    // notification), not at its 30 s refresh: its treatment users are ranked as blocked at once.
    const blocked = `exp${experimentId}:treatment:blocked`;
    const treated = await database.db
      .selectFrom('experiment_assignments')
      .select('user_id')
      .where('experiment_id', '=', experimentId)
      .where('variant', '=', 'treatment')
      .execute();
    expect(treated.length).toBeGreaterThan(0);
    const rankedBlocked = await eventually(
      async () => {
        await Promise.all(USERS.map((user) => recommendationIds(b, user)));
        return generations(b, blocked);
      },
      (count) => count > 0,
    );
    expect(rankedBlocked).toBeGreaterThan(0);
  }, 60_000);

  it('keeps answering on both instances, without a 5xx, when Redis is killed; health reports it failing', async () => {
    await redis.kill();
    const bearer = await token('after-redis');
    // Rate limits fail open: more than the group's 3 a minute are served, without rate-limit headers.
    for (let i = 0; i < 6; i += 1) {
      const answer = await call(i % 2 === 0 ? a : b, 'GET', '/api/v1/recommendations?user_id=after-redis&limit=5', bearer);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-ratelimit-remaining')).toBeNull();
    }
    const list = await recommendationIds(b, 'after-redis', bearer);
    const interaction = await call(a, 'POST', '/api/v1/interactions', bearer, {
      user_id: 'after-redis',
      post_id: list[0],
      action_type: 'bookmark',
    });
    expect(interaction.status).toBe(201);
    for (const instance of [a, b]) {
      const health = await call(instance, 'GET', '/api/v1/health');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({
        status: 'degraded',
        components: { database: { status: 'connected' }, redis: { status: 'error' } },
      });
      expect(instance.child.exitCode).toBeNull();
    }
    expect(a.logs()).toContain('FAIL OPEN');
    expect(b.logs()).toContain('FAIL OPEN');
    expect(statuses.filter((entry) => entry.status >= 500)).toEqual([]);
  }, 60_000);
});

/** Waits, when needed, so that the next 20 s stay inside one minute window of the rate limits. */
async function awayFromMinuteEnd(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 40_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 200));
}

/** Calls `read` until `done` holds of its answer (at most 20 tries, 100 ms apart); returns the last answer. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let attempt = 1; attempt < 20 && !done(value); attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}
