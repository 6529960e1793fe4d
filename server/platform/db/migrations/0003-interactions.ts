/**
 * Interactions (one row per user, post and action), feedback, explicit preferences and
 * the learned, time-decayed affinities. Frozen: never import app code here.
 */
import type { Kysely } from 'kysely';
import { doubleType, epochMsType } from './portable-types.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('interactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('post_id', 'text', (c) => c.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('action_type', 'text', (c) => c.notNull())
    .addColumn('context_json', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', epochMsType(db), (c) => c.notNull())
    .addUniqueConstraint('interactions_user_post_action', ['user_id', 'post_id', 'action_type'])
    .execute();
  await db.schema.createIndex('interactions_user_id').on('interactions').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('interactions_post_id').on('interactions').column('post_id').execute();

  await db.schema
    .createTable('feedback')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('post_id', 'text', (c) => c.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('feedback', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', epochMsType(db), (c) => c.notNull())
    .execute();
  await db.schema.createIndex('feedback_user_id').on('feedback').columns(['user_id', 'id']).execute();

  await db.schema
    .createTable('user_preferences')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('favoured_authors', 'text', (c) => c.notNull())
    .addColumn('muted_authors', 'text', (c) => c.notNull())
    .addColumn('favoured_tags', 'text', (c) => c.notNull())
    .addColumn('muted_tags', 'text', (c) => c.notNull())
    .addColumn('languages', 'text', (c) => c.notNull())
    .addColumn('include_reblogs', 'integer', (c) => c.notNull())
    .addColumn('recommendation_ratio', doubleType(db))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('user_affinities')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('score', doubleType(db), (c) => c.notNull())
    .addColumn('as_of_ms', epochMsType(db), (c) => c.notNull())
    .addPrimaryKeyConstraint('user_affinities_pk', ['user_id', 'kind', 'target'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('user_affinities').execute();
  await db.schema.dropTable('user_preferences').execute();
  await db.schema.dropTable('feedback').execute();
  await db.schema.dropTable('interactions').execute();
}
