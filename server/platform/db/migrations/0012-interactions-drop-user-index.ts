/**
 * Drops `interactions_user_id (user_id, id)`: the unique (user_id, post_id, action_type)
 * index serves every by-user lookup through its user_id prefix (a user's few rows are then
 * sorted), and one index fewer is one random page write fewer per interaction.
 * Frozen: never import app code here.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('interactions_user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('interactions_user_id').on('interactions').columns(['user_id', 'id']).execute();
}
