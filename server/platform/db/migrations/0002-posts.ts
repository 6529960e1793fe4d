/**
 * Accounts, posts (Mastodon statuses) and their tags. Frozen: never import app code here.
 * `sort_key` makes ids comparable as text: numeric ids are left-padded to 20 digits.
 */
import type { Kysely } from 'kysely';
import { epochMsType } from './portable-types.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('acct', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('uri', 'text', (c) => c.notNull())
    .addColumn('avatar', 'text', (c) => c.notNull())
    .addColumn('header', 'text', (c) => c.notNull())
    .addColumn('locked', 'integer', (c) => c.notNull())
    .addColumn('bot', 'integer', (c) => c.notNull())
    .addColumn('group', 'integer', (c) => c.notNull())
    .addColumn('followers_count', 'integer', (c) => c.notNull())
    .addColumn('following_count', 'integer', (c) => c.notNull())
    .addColumn('statuses_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('extras_json', 'text', (c) => c.notNull())
    .addColumn('original_json', 'text')
    .execute();

  await db.schema
    .createTable('posts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('sort_key', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('uri', 'text', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('plain_text', 'text', (c) => c.notNull())
    .addColumn('spoiler_text', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('sensitive', 'integer', (c) => c.notNull())
    .addColumn('language', 'text')
    .addColumn('in_reply_to_id', 'text')
    .addColumn('in_reply_to_account_id', 'text')
    .addColumn('reblog_of_id', 'text')
    .addColumn('tag_names', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', epochMsType(db), (c) => c.notNull())
    .addColumn('edited_at', 'text')
    .addColumn('favourites_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('reblogs_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('replies_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bookmarks_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('extras_json', 'text', (c) => c.notNull())
    .addColumn('original_json', 'text')
    .addColumn('ingested_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('posts_account_sort').on('posts').columns(['account_id', 'sort_key']).execute();
  await db.schema.createIndex('posts_created_at_ms').on('posts').column('created_at_ms').execute();
  await db.schema.createIndex('posts_reblog_of').on('posts').column('reblog_of_id').execute();

  await db.schema
    .createTable('post_tags')
    .addColumn('post_id', 'text', (c) => c.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('tag', 'text', (c) => c.notNull())
    .addColumn('sort_key', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('post_tags_pk', ['post_id', 'tag'])
    .execute();
  await db.schema.createIndex('post_tags_tag_sort').on('post_tags').columns(['tag', 'sort_key']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('post_tags').execute();
  await db.schema.dropTable('posts').execute();
  await db.schema.dropTable('accounts').execute();
}
