/**
 * Analytics events, experiment impressions and per-variant performance counters.
 * Frozen: never import app code here.
 */
import type { Kysely } from 'kysely';
import { autoIncrementPrimaryKey, counterType, doubleType, epochMsType, eventIdType } from './portable-types.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('analytics_events')
    .addColumn('id', eventIdType(db), autoIncrementPrimaryKey(db))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('post_id', 'text')
    .addColumn('session_id', 'text')
    .addColumn('occurred_at_ms', epochMsType(db), (c) => c.notNull())
    .addColumn('received_at_ms', epochMsType(db), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('analytics_events_user_received').on('analytics_events').columns(['user_id', 'received_at_ms']).execute();

  await db.schema
    .createTable('experiment_impressions')
    .addColumn('id', eventIdType(db), autoIncrementPrimaryKey(db))
    .addColumn('experiment_id', 'integer', (c) => c.notNull())
    .addColumn('variant', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('post_id', 'text', (c) => c.notNull())
    .addColumn('score', doubleType(db), (c) => c.notNull())
    .addColumn('reason_code', 'text', (c) => c.notNull())
    .addColumn('served_at_ms', epochMsType(db), (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('experiment_impressions_experiment_user')
    .on('experiment_impressions')
    .columns(['experiment_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('experiment_performance')
    .addColumn('experiment_id', 'integer', (c) => c.notNull())
    .addColumn('variant', 'text', (c) => c.notNull())
    .addColumn('requests', counterType(db), (c) => c.notNull().defaultTo(0))
    .addColumn('errors', counterType(db), (c) => c.notNull().defaultTo(0))
    .addColumn('cache_hits', counterType(db), (c) => c.notNull().defaultTo(0))
    .addColumn('cache_lookups', counterType(db), (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('experiment_performance_pk', ['experiment_id', 'variant'])
    .execute();

  await db.schema
    .createTable('experiment_latency_buckets')
    .addColumn('experiment_id', 'integer', (c) => c.notNull())
    .addColumn('variant', 'text', (c) => c.notNull())
    .addColumn('bucket', 'integer', (c) => c.notNull())
    .addColumn('count', counterType(db), (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('experiment_latency_buckets_pk', ['experiment_id', 'variant', 'bucket'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('experiment_latency_buckets').execute();
  await db.schema.dropTable('experiment_performance').execute();
  await db.schema.dropTable('experiment_impressions').execute();
  await db.schema.dropTable('analytics_events').execute();
}
