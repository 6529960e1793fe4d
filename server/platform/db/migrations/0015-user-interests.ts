/**
 * `user_interests`: each user's interest vector (the decayed TF-IDF weights of the terms of
 * what they engaged with), kept up to date by every interaction, undo and feedback in the
 * same transaction, so that a user's first recommendations read it in one indexed lookup
 * instead of replaying their history. One row per user: the terms as a JSON array, their
 * raw forward-decayed weights as little-endian float64s, and the instants those are
 * relative to. Epoch milliseconds are bigint (64-bit in PostgreSQL too).
 * Frozen: never import app code here.
 */
import { SqliteAdapter, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('user_interests')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('ref_ms', 'bigint', (c) => c.notNull())
    .addColumn('latest_ms', 'bigint', (c) => c.notNull())
    .addColumn('terms', 'text', (c) => c.notNull())
    .addColumn('weights', sqlite ? 'blob' : 'bytea', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('user_interests').execute();
}
