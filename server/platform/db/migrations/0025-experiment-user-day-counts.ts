/**
 * `experiment_user_day_counts` (issue 13): the counts kept at write time in
 * experiment_user_counts, split by UTC day, so the export can give every user's counts per
 * day (the report's history) for what event rows cannot give: interactions and feedback of
 * every user, and the impressions, clicks and sessions of users at `limited`. One row per
 * experiment, user (pseudonym, named `user_id` so erasure finds it) and day (`day_ms`: UTC
 * midnight, epoch ms); `id` lets the retention agent purge old days in batches. Updated in the
 * same transactions as experiment_user_counts; nothing before this migration is split.
 *
 * Frozen: never import app code here.
 */
import type { Kysely } from 'kysely';
import { autoIncrementPrimaryKey, counterType, epochMsType, eventIdType } from './portable-types.js';

export async function up(db: Kysely<any>): Promise<void> {
  const counter = counterType(db);
  await db.schema
    .createTable('experiment_user_day_counts')
    .addColumn('id', eventIdType(db), autoIncrementPrimaryKey(db))
    .addColumn('experiment_id', 'integer', (c) => c.notNull().references('experiments.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('day_ms', epochMsType(db), (c) => c.notNull())
    .addColumn('impressions', counter, (c) => c.notNull().defaultTo(0))
    .addColumn('clicks', counter, (c) => c.notNull().defaultTo(0))
    .addColumn('sessions', counter, (c) => c.notNull().defaultTo(0))
    .addColumn('session_ms', epochMsType(db), (c) => c.notNull().defaultTo(0))
    .addColumn('bounces', counter, (c) => c.notNull().defaultTo(0))
    .addColumn('interactions', counter, (c) => c.notNull().defaultTo(0))
    .addColumn('feedback_positive', counter, (c) => c.notNull().defaultTo(0))
    .addColumn('feedback_negative', counter, (c) => c.notNull().defaultTo(0))
    .addUniqueConstraint('experiment_user_day_counts_day', ['experiment_id', 'user_id', 'day_ms'])
    .execute();
  await db.schema.createIndex('experiment_user_day_counts_user').on('experiment_user_day_counts').column('user_id').execute();
  await db.schema.createIndex('experiment_user_day_counts_day_ms').on('experiment_user_day_counts').column('day_ms').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('experiment_user_day_counts').execute();
}
