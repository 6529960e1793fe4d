/** Experiments, their variants and the users' recorded assignments. Frozen: never import app code here. */
import type { Kysely } from 'kysely';
import { autoIncrementPrimaryKey, doubleType, epochMsType } from './portable-types.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('experiments')
    .addColumn('id', 'integer', autoIncrementPrimaryKey(db))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('traffic_percentage', doubleType(db), (c) => c.notNull())
    .addColumn('minimum_sample_size', 'integer', (c) => c.notNull())
    .addColumn('confidence_level', doubleType(db), (c) => c.notNull())
    .addColumn('primary_metric', 'text', (c) => c.notNull())
    .addColumn('gates', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('ended_at', 'text')
    .execute();
  await db.schema.createIndex('experiments_status').on('experiments').column('status').execute();

  await db.schema
    .createTable('experiment_variants')
    .addColumn('experiment_id', 'integer', (c) => c.notNull().references('experiments.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('traffic_allocation', doubleType(db), (c) => c.notNull())
    .addColumn('algorithm_config', 'text', (c) => c.notNull())
    .addColumn('is_control', 'integer', (c) => c.notNull())
    .addColumn('blocked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('blocked_at', 'text')
    .addColumn('blocked_reason', 'text')
    .addPrimaryKeyConstraint('experiment_variants_pk', ['experiment_id', 'name'])
    .addUniqueConstraint('experiment_variants_position', ['experiment_id', 'position'])
    .execute();

  // Events count for an experiment only while it was ACTIVE: these are those stretches.
  await db.schema
    .createTable('experiment_active_periods')
    .addColumn('experiment_id', 'integer', (c) => c.notNull().references('experiments.id').onDelete('cascade'))
    .addColumn('started_at_ms', epochMsType(db), (c) => c.notNull())
    .addColumn('ended_at_ms', epochMsType(db))
    .execute();
  await db.schema.createIndex('experiment_active_periods_experiment').on('experiment_active_periods').column('experiment_id').execute();

  // The primary key makes a first assignment race-safe: insert-or-ignore, then read back.
  await db.schema
    .createTable('experiment_assignments')
    .addColumn('experiment_id', 'integer', (c) => c.notNull().references('experiments.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('variant', 'text', (c) => c.notNull())
    .addColumn('assigned_at_ms', epochMsType(db), (c) => c.notNull())
    .addPrimaryKeyConstraint('experiment_assignments_pk', ['experiment_id', 'user_id'])
    .execute();
  await db.schema.createIndex('experiment_assignments_user').on('experiment_assignments').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('experiment_assignments').execute();
  await db.schema.dropTable('experiment_active_periods').execute();
  await db.schema.dropTable('experiment_variants').execute();
  await db.schema.dropTable('experiments').execute();
}
