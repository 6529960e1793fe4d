/**
 * The same migrations on PostgreSQL: every one applies, the types hold what SQLite's hold
 * (epoch milliseconds in 64 bits, floats in double precision, auto-numbered ids), a second
 * run applies nothing, and they migrate down again.
 */
import { Migrator, NO_MIGRATIONS } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { MIGRATIONS } from '../../server/platform/db/migrations/index.js';
import { createTestSchema, postgresUnavailable, suiteTitle, type TestSchema } from './postgres-test-database.js';

const unavailable = await postgresUnavailable();

interface ColumnType {
  table_name: string;
  column_name: string;
  data_type: string;
  is_identity: string;
}

describe.skipIf(unavailable !== undefined)(suiteTitle('the migrations', unavailable), () => {
  let schema: TestSchema;
  let database: DatabaseHandle;
  let columns: ColumnType[];

  beforeAll(async () => {
    schema = await createTestSchema();
    database = await openDatabase(schema.url);
  });

  afterAll(async () => {
    try {
      await database?.close();
    } finally {
      await schema?.drop();
    }
  });

  const typeOf = (table: string, column: string): string | undefined =>
    columns.find((c) => c.table_name === table && c.column_name === column)?.data_type;

  it('all apply, in their order, in the connection’s schema; a second run applies none', async () => {
    expect(database.dialect).toBe('postgres');
    expect(await migrateToLatest(database.db)).toEqual(Object.keys(MIGRATIONS));
    expect(await migrateToLatest(database.db)).toEqual([]);
    const { rows } = await schema.admin.query<ColumnType>(
      `SELECT table_name, column_name, data_type, is_identity FROM information_schema.columns WHERE table_schema = $1`,
      [schema.name],
    );
    columns = rows;
    expect(new Set(columns.map((c) => c.table_name))).toContain('kysely_migration');
    expect(typeOf('experiments', 'analysis_method')).toBe('text');
  });

  it('stores every epoch-milliseconds column as bigint (PostgreSQL’s integer is 32-bit)', () => {
    const ms = columns.filter((c) => c.column_name.endsWith('_ms'));
    // The eleven of migrations 0002-0011 at least, all of them bigint.
    expect(ms.length).toBeGreaterThanOrEqual(11);
    for (const [table, column] of [
      ['posts', 'created_at_ms'],
      ['interactions', 'created_at_ms'],
      ['feedback', 'created_at_ms'],
      ['user_affinities', 'as_of_ms'],
      ['experiment_active_periods', 'started_at_ms'],
      ['experiment_active_periods', 'ended_at_ms'],
      ['experiment_assignments', 'assigned_at_ms'],
      ['analytics_events', 'occurred_at_ms'],
      ['analytics_events', 'received_at_ms'],
      ['experiment_impressions', 'served_at_ms'],
    ]) {
      expect(typeOf(table!, column!), `${table}.${column}`).toBe('bigint');
    }
    expect(ms.filter((c) => c.data_type !== 'bigint').map((c) => `${c.table_name}.${c.column_name} ${c.data_type}`)).toEqual([]);
  });

  it('stores floats in double precision and traffic-sized counters and event ids in 64 bits', () => {
    for (const [table, column] of [
      ['user_preferences', 'recommendation_ratio'],
      ['user_affinities', 'score'],
      ['experiments', 'traffic_percentage'],
      ['experiments', 'confidence_level'],
      ['experiment_variants', 'traffic_allocation'],
      ['experiment_impressions', 'score'],
    ]) {
      expect(typeOf(table!, column!), `${table}.${column}`).toBe('double precision');
    }
    expect(columns.filter((c) => c.data_type === 'real').map((c) => `${c.table_name}.${c.column_name}`)).toEqual([]);
    for (const [table, column] of [
      ['experiment_performance', 'requests'],
      ['experiment_latency_buckets', 'count'],
      ['analytics_events', 'impression_id'],
    ]) {
      expect(typeOf(table!, column!), `${table}.${column}`).toBe('bigint');
    }
  });

  it('numbers ids itself where SQLite autoincrements', () => {
    const identities = columns.filter((c) => c.is_identity === 'YES').map((c) => `${c.table_name}.${c.column_name} ${c.data_type}`);
    expect(identities).toEqual(
      expect.arrayContaining(['experiments.id integer', 'analytics_events.id bigint', 'experiment_impressions.id bigint']),
    );
  });

  it('returns 64-bit values as numbers and keeps epoch milliseconds past 2^31 exact', async () => {
    const db = database.db;
    const id = (
      await db
        .insertInto('analytics_events')
        .values({ type: 'session_start', user_id: 'u1', occurred_at_ms: 1_763_000_000_123, received_at_ms: 1_763_000_000_456 })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    expect(typeof id).toBe('number');
    const row = await db
      .selectFrom('analytics_events')
      .select(['occurred_at_ms', 'received_at_ms'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ occurred_at_ms: 1_763_000_000_123, received_at_ms: 1_763_000_000_456 });
  });

  it('migrates all the way down and up again', async () => {
    const migrator = new Migrator({
      db: database.db,
      provider: { getMigrations: async () => ({ ...MIGRATIONS }) },
      migrationTableSchema: schema.name,
    });
    const down = await migrator.migrateTo(NO_MIGRATIONS);
    expect(down.error).toBeUndefined();
    const { rows } = await schema.admin.query<{ n: string }>(
      `SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = $1 AND table_name NOT LIKE 'kysely_%'`,
      [schema.name],
    );
    expect(Number(rows[0]!.n)).toBe(0);
    expect(await migrateToLatest(database.db)).toEqual(Object.keys(MIGRATIONS));
  });
});
