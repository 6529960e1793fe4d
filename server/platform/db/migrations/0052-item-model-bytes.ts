/**
 * `item_models.model_bytes`: the model in its binary form (src/ranking/item-model.ts,
 * `itemModelToBytes`), which every instance loads without parsing megabytes of JSON on its
 * serving thread. A model built from now on is stored there with `model` left empty; a row
 * stored before keeps its JSON in `model` (null here) and still loads. Blob in SQLite, bytea in
 * PostgreSQL.
 *
 * Frozen: never import app code here.
 */
import { SqliteAdapter, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .alterTable('item_models')
    .addColumn('model_bytes', sqlite ? 'blob' : 'bytea')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('item_models').dropColumn('model_bytes').execute();
}
