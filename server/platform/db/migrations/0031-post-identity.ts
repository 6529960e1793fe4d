/**
 * Posts and accounts identified by their ActivityPub `uri`, each instance's own id for them a
 * mapping (decisions.md, "A post is its ActivityPub uri"):
 *
 * - `posts.origin_host`: the host of the post's `uri` (the instance whose word its content is);
 *   `posts.source_instance`: the instance whose copy the stored content is (`''`: written through
 *   the service's own posts API, or before this migration). Both filled for existing rows.
 * - `posts.uri` unique. Rows stored before under several ids for one `uri` (instances' ids
 *   collided, or one status seen through two instances) keep their ids and interactions; all but
 *   the oldest get `#recsvc-duplicate-<id>` appended to their `uri`, so the unique index can hold.
 * - `post_instance_ids` / `account_instance_ids`: (instance, the instance's id) → the service's
 *   id. Existing rows have no known instance: their mappings start empty and fill as pages are read.
 *
 * Frozen: never import app code here.
 */
import { SqliteAdapter, sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('posts')
    .addColumn('origin_host', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('posts')
    .addColumn('source_instance', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  // The host of an absolute http(s) URI, lowercase: the text between '://' and the next '/'.
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    await sql`UPDATE posts SET origin_host = LOWER(
        CASE WHEN INSTR(SUBSTR(uri, INSTR(uri, '://') + 3), '/') > 0
          THEN SUBSTR(SUBSTR(uri, INSTR(uri, '://') + 3), 1, INSTR(SUBSTR(uri, INSTR(uri, '://') + 3), '/') - 1)
          ELSE SUBSTR(uri, INSTR(uri, '://') + 3) END)
      WHERE INSTR(uri, '://') > 0`.execute(db);
  } else {
    await sql`UPDATE posts SET origin_host = LOWER(SPLIT_PART(SUBSTRING(uri FROM POSITION('://' IN uri) + 3), '/', 1))
      WHERE POSITION('://' IN uri) > 0`.execute(db);
  }
  await sql`UPDATE posts SET uri = uri || '#recsvc-duplicate-' || id
    WHERE EXISTS (SELECT 1 FROM posts AS older WHERE older.uri = posts.uri
      AND (older.created_at_ms < posts.created_at_ms OR (older.created_at_ms = posts.created_at_ms AND older.id < posts.id)))`.execute(db);
  await db.schema.createIndex('posts_uri').unique().on('posts').column('uri').execute();
  await db.schema.createIndex('posts_origin_created').on('posts').columns(['origin_host', 'created_at_ms']).execute();
  await db.schema.createIndex('accounts_uri').on('accounts').column('uri').execute();

  await db.schema
    .createTable('post_instance_ids')
    .addColumn('instance', 'text', (c) => c.notNull())
    .addColumn('local_id', 'text', (c) => c.notNull())
    .addColumn('post_id', 'text', (c) => c.notNull().references('posts.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('post_instance_ids_pk', ['instance', 'local_id'])
    .execute();
  await db.schema.createIndex('post_instance_ids_post').on('post_instance_ids').columns(['post_id', 'instance']).execute();

  await db.schema
    .createTable('account_instance_ids')
    .addColumn('instance', 'text', (c) => c.notNull())
    .addColumn('local_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('account_instance_ids_pk', ['instance', 'local_id'])
    .execute();
  await db.schema.createIndex('account_instance_ids_account').on('account_instance_ids').columns(['account_id', 'instance']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('account_instance_ids').execute();
  await db.schema.dropTable('post_instance_ids').execute();
  await db.schema.dropIndex('accounts_uri').execute();
  await db.schema.dropIndex('posts_origin_created').execute();
  await db.schema.dropIndex('posts_uri').execute();
  await db.schema.alterTable('posts').dropColumn('source_instance').execute();
  await db.schema.alterTable('posts').dropColumn('origin_host').execute();
}
