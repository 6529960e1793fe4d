/**
 * SQLite: rebuilds `user_affinities` as a WITHOUT ROWID table, so rows live in their
 * (user_id, kind, target) primary-key b-tree. A user's affinities then sit together on one
 * page, and each interaction's upserts dirty that one page instead of a row page plus an
 * index page per new row. PostgreSQL (no such option; tables are heaps) skips it.
 * Frozen: never import app code here.
 */
import { SqliteAdapter, sql, type Kysely } from 'kysely';

async function rebuild(db: Kysely<any>, withoutRowid: boolean): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await db.schema
    .createTable('user_affinities_rebuilt')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('score', 'real', (c) => c.notNull())
    .addColumn('as_of_ms', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_affinities_pk', ['user_id', 'kind', 'target'])
    .$call((table) => (withoutRowid ? table.modifyEnd(sql`WITHOUT ROWID`) : table))
    .execute();
  await sql`INSERT INTO user_affinities_rebuilt (user_id, kind, target, score, as_of_ms)
    SELECT user_id, kind, target, score, as_of_ms FROM user_affinities ORDER BY user_id, kind, target`.execute(db);
  await db.schema.dropTable('user_affinities').execute();
  await db.schema.alterTable('user_affinities_rebuilt').renameTo('user_affinities').execute();
}

export async function up(db: Kysely<any>): Promise<void> {
  await rebuild(db, true);
}

export async function down(db: Kysely<any>): Promise<void> {
  await rebuild(db, false);
}
