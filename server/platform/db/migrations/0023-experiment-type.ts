/**
 * Interleaving experiments (issue 13). `experiments.type`: `ab` (every experiment before this
 * column, and the default) or `interleaving`. `interleaving_impressions`: one row per item
 * served in an interleaved list, naming the team (the variant whose ranker contributed the
 * item), so a click on it can be credited to that ranker. Frozen: never import app code here.
 */
import type { Kysely } from 'kysely';
import { autoIncrementPrimaryKey, epochMsType, eventIdType } from './portable-types.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('experiments')
    .addColumn('type', 'text', (c) => c.notNull().defaultTo('ab'))
    .execute();
  await db.schema
    .createTable('interleaving_impressions')
    .addColumn('id', eventIdType(db), autoIncrementPrimaryKey(db))
    .addColumn('experiment_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('post_id', 'text', (c) => c.notNull())
    .addColumn('team', 'text', (c) => c.notNull())
    .addColumn('served_at_ms', epochMsType(db), (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('interleaving_impressions_experiment_user_post')
    .on('interleaving_impressions')
    .columns(['experiment_id', 'user_id', 'post_id', 'served_at_ms'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('interleaving_impressions').execute();
  await db.schema.alterTable('experiments').dropColumn('type').execute();
}
