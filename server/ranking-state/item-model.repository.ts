/**
 * SQL of the periodic item–item model (`item_models`, migration 0051): the bounded read of the
 * newest positive interactions it is fitted on, and the one stored model every instance loads.
 */
import type { Kysely } from 'kysely';
import { itemModelFromBytes, itemModelFromJson, type ItemModel, type ItemModelPair } from '../../src/ranking/item-model.js';
import type { Database } from '../platform/db/database.js';
import { readNewestInChunks } from './chunked-read.js';

/** The newest `limit` interactions as (user, post) pairs (newest by id: ids are in time order). */
export async function loadItemModelPairs(db: Kysely<Database>, limit: number): Promise<ItemModelPair[]> {
  const rows = await readNewestInChunks(
    limit,
    (before, n) => {
      const newest = db.selectFrom('interactions').select(['id', 'user_id', 'post_id']).orderBy('id', 'desc').limit(n);
      return (before === undefined ? newest : newest.where('id', '<', before)).execute();
    },
    (row) => row.id,
  );
  return rows.map((row) => ({ userId: row.user_id, postId: row.post_id }));
}

export interface StoredItemModel {
  readonly id: string;
  readonly createdAtMs: number;
  readonly interactions: number;
  readonly bytes: number;
}

/** Replaces the stored model (one row at most). */
export async function storeItemModel(
  db: Kysely<Database>,
  row: { createdAtMs: number; interactions: number; posts: number; entries: number; bytes: Uint8Array },
): Promise<string> {
  const id = `${row.createdAtMs.toString().padStart(15, '0')}-${Math.random().toString(36).slice(2, 10)}`;
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('item_models').execute();
    await trx
      .insertInto('item_models')
      .values({
        id,
        created_at_ms: row.createdAtMs,
        interactions: row.interactions,
        posts: row.posts,
        entries: row.entries,
        bytes: row.bytes.length,
        model: '',
        // A Buffer over the same memory: what both drivers bind as a blob / bytea.
        model_bytes: Buffer.from(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength),
      })
      .execute();
  });
  return id;
}

/** The stored model's id and size, without the model (undefined: none). */
export async function storedItemModel(db: Kysely<Database>): Promise<StoredItemModel | undefined> {
  const row = await db
    .selectFrom('item_models')
    .select(['id', 'created_at_ms', 'interactions', 'bytes'])
    .orderBy('created_at_ms', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row === undefined
    ? undefined
    : { id: row.id, createdAtMs: Number(row.created_at_ms), interactions: Number(row.interactions), bytes: Number(row.bytes) };
}

/** The stored model with that id, read (undefined: gone since). */
export async function loadItemModel(db: Kysely<Database>, id: string): Promise<ItemModel | undefined> {
  const row = await db.selectFrom('item_models').select(['model', 'model_bytes']).where('id', '=', id).executeTakeFirst();
  if (row === undefined) return undefined;
  // A row stored before migration 0052 holds the model as JSON.
  return row.model_bytes === null ? itemModelFromJson(row.model) : itemModelFromBytes(row.model_bytes);
}

/** Deletes the stored model (an erasure: what was fitted with the user is not served again). */
export async function dropItemModels(db: Kysely<Database>): Promise<void> {
  await db.deleteFrom('item_models').execute();
}
