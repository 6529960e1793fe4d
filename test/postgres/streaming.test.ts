/**
 * Every `.stream()` in server/ works on PostgreSQL (kysely streams there only through a
 * pg-cursor, given to the dialect by server/platform/db/postgres-connection.ts). The one user is
 * streamAssignments, behind the allocation diff and the allocation change (which streams
 * inside its transaction): with more assignments than one cursor chunk, the diff through the
 * real app must count every user, and say the same as on SQLite.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { createToken } from '../../server/platform/auth/token.service.js';
import type { DatabaseHandle } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { streamAssignments } from '../../server/experiments/assignment.repository.js';
import { createPrivacyPolicy } from '../../server/privacy/privacy.feature.js';
import { experimentBody } from '../server/experiments/experiment-bodies.js';
import { observeOnBoth, postgresUnavailable, suiteTitle, type TestSchema } from './postgres-test-database.js';

const unavailable = await postgresUnavailable();

const EXPERIMENTS = '/api/v1/analytics/experiments';
/** More than two of kysely's default stream chunks (100 rows). */
const USERS = 250;
const SIXTY_FORTY = [
  { name: 'control', traffic_allocation: 60 },
  { name: 'treatment', traffic_allocation: 40 },
];

interface Observed {
  streamed: number;
  streamedInChunksOf7: number;
  variants: Record<string, number>;
  diff: unknown;
  refusedChange: { status: number; message: string };
  forcedChange: number;
}

/** Stores an experiment with USERS recorded assignments (user i in bucket i % 100), then diffs and changes its allocations. */
async function observe(database: DatabaseHandle): Promise<Observed> {
  await migrateToLatest(database.db);
  const privacy = await createPrivacyPolicy(database.db, { pseudonymKey: '22'.repeat(32) });
  const app: FastifyInstance = await buildApp({ database, privacy, rateLimit: null });
  try {
    await app.ready();
    const { token } = await createToken(database.db, {
      scopes: ['read', 'write', 'admin'],
      tier: 'authenticated',
      userId: null,
      ttlSeconds: 600,
    });
    const headers = { authorization: `Bearer ${token}` };
    const created = await app.inject({ method: 'POST', url: EXPERIMENTS, headers, payload: experimentBody() });
    expect(created.statusCode).toBe(201);
    const id = created.json<{ data: { id: number } }>().data.id;
    const rows = Array.from({ length: USERS }, (_, i) => ({
      experiment_id: id,
      user_id: `pseudonym-${String(i).padStart(4, '0')}`,
      variant: i % 100 < 50 ? 'control' : 'treatment',
      bucket: i % 100,
    }));
    await database.db.insertInto('experiment_user_counts').values(rows).execute();

    let streamed = 0;
    const variants: Record<string, number> = {};
    for await (const row of streamAssignments(database.db, id)) {
      streamed += 1;
      variants[row.variant] = (variants[row.variant] ?? 0) + 1;
      expect(typeof row.bucket).toBe('number');
    }
    // A chunk size that does not divide the row count: the last, partial chunk is read too.
    let streamedInChunksOf7 = 0;
    for await (const _row of database.db.selectFrom('experiment_user_counts').select('user_id').where('experiment_id', '=', id).stream(7))
      streamedInChunksOf7 += 1;

    const diff = await app.inject({
      method: 'POST',
      url: `${EXPERIMENTS}/${id}/allocation-diff`,
      headers,
      payload: { variants: SIXTY_FORTY },
    });
    expect(diff.statusCode).toBe(200);
    const refused = await app.inject({ method: 'PATCH', url: `${EXPERIMENTS}/${id}`, headers, payload: { variants: SIXTY_FORTY } });
    const forced = await app.inject({
      method: 'PATCH',
      url: `${EXPERIMENTS}/${id}`,
      headers,
      payload: { variants: SIXTY_FORTY, force: true },
    });
    return {
      streamed,
      streamedInChunksOf7,
      variants,
      diff: diff.json<{ data: unknown }>().data,
      refusedChange: { status: refused.statusCode, message: refused.json<{ message: string }>().message },
      forcedChange: forced.statusCode,
    };
  } finally {
    await app.close();
  }
}

describe.skipIf(unavailable !== undefined)(suiteTitle('.stream() through a cursor', unavailable), () => {
  let schema: TestSchema;
  let sqlite: Observed;
  let postgres: Observed;

  beforeAll(async () => {
    ({ sqlite, postgres, schema } = await observeOnBoth(observe));
  }, 60_000);

  afterAll(async () => {
    await schema?.drop();
  });

  it('streams every recorded assignment, across cursor chunks', () => {
    expect(postgres.streamed).toBe(USERS);
    expect(postgres.streamedInChunksOf7).toBe(USERS);
    expect(postgres.variants).toEqual({ control: 150, treatment: 100 });
  });

  it('the allocation diff counts every assigned user, and the users in buckets 50-59 move', () => {
    expect(postgres.diff).toMatchObject({
      buckets: [{ start: 50, end: 60, from: 'treatment', to: 'control' }],
      buckets_moving: 10,
      users_assigned: USERS,
      users_moving: 20,
    });
  });

  it('the allocation change streams inside its transaction: refused with the count, then forced', () => {
    expect(postgres.refusedChange.status).toBe(409);
    expect(postgres.refusedChange.message).toContain(`move 20 of ${USERS} assigned users`);
    expect(postgres.forcedChange).toBe(200);
  });

  it('says the same as on SQLite', () => {
    expect(postgres).toEqual(sqlite);
  });
});
