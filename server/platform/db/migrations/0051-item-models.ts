/**
 * `item_models`: the periodic item–item model (src/ranking/item-model.ts; docs/ranking.md,
 * "The periodic item–item model"), built off the serving process by the `item_model` agent and
 * loaded by every instance, at most one row (a build replaces it; an erasure deletes it):
 * - `created_at_ms`: when the build began reading the interactions it was fitted on;
 * - `interactions`: how many it read; `posts`, `entries`, `bytes`: its size (the model's JSON);
 * - `model`: the model as JSON (`itemModelToJson`: post ids, offsets, neighbours, weights).
 * Epoch milliseconds are bigint in PostgreSQL.
 *
 * Frozen: never import app code here.
 */
import type { Kysely } from 'kysely';
import { epochMsType } from './portable-types.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('item_models')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('created_at_ms', epochMsType(db), (c) => c.notNull())
    .addColumn('interactions', 'integer', (c) => c.notNull())
    .addColumn('posts', 'integer', (c) => c.notNull())
    .addColumn('entries', 'integer', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('item_models').execute();
}
