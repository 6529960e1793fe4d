/**
 * Tracking levels and pseudonyms in the experiment tables (issue 12):
 *
 * - `experiment_user_counts`: one row per enrolled user (by pseudonym) and experiment, made
 *   at assignment: the user's variant bucket (of the canonical id: the stored id is a pseudonym
 *   the bucket cannot be recomputed from), pre-experiment engagement and cold start, then the counts the
 *   analysis needs that cannot come from event rows — interactions and feedback (whose rows
 *   carry raw ids), and for users at `limited` the impressions, clicks and sessions of which
 *   no event rows are kept.
 * - `experiment_open_sessions`: a `limited` user's session between its start and its end
 *   (then folded into the counts and deleted).
 * - `privacy_backfills`: one-time conversions done in code at start (the pseudonym key is not
 *   available to a migration), by name.
 *
 * Counters and epoch milliseconds are `bigint` (64-bit in PostgreSQL; SQLite's integers are anyway).
 * Frozen: never import app code here.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('experiment_user_counts')
    .addColumn('experiment_id', 'integer', (c) => c.notNull().references('experiments.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('variant', 'text', (c) => c.notNull())
    .addColumn('bucket', 'integer', (c) => c.notNull())
    .addColumn('cold', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pre_engagement', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('impressions', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('clicks', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('sessions', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('session_ms', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('bounces', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('interactions', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('feedback_positive', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('feedback_negative', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('experiment_user_counts_pk', ['experiment_id', 'user_id'])
    .execute();
  await db.schema.createIndex('experiment_user_counts_user').on('experiment_user_counts').column('user_id').execute();

  await db.schema
    .createTable('experiment_open_sessions')
    .addColumn('experiment_id', 'integer', (c) => c.notNull().references('experiments.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('started_ms', 'bigint')
    .addColumn('ended_ms', 'bigint')
    .addColumn('clicks', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('experiment_open_sessions_pk', ['experiment_id', 'user_id', 'session_id'])
    .execute();

  await db.schema
    .createTable('privacy_backfills')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('done_at_ms', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('privacy_backfills').execute();
  await db.schema.dropTable('experiment_open_sessions').execute();
  await db.schema.dropTable('experiment_user_counts').execute();
}
