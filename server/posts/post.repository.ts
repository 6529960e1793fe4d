/** SQL for accounts, posts and their tags. */
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import { DEFAULT_SOURCE_SHARES, ENGAGEMENT_WEIGHTS, takeWithinShares, type SourceShares } from '../../src/ranking/index.js';
import type { Database } from '../platform/db/database.js';
import { bulkInsert, rowsPerStatement } from '../platform/db/bulk-insert.js';
import { greatest } from '../platform/db/portable-sql.js';
import { queryTemplate } from '../platform/db/precompiled-query.js';
import type { AccountsTable, PostsTable } from './posts.tables.js';

export type AccountRow = Selectable<AccountsTable>;
export type PostRow = Selectable<PostsTable>;

/**
 * A post with its author's columns (prefixed `a_`), as rendered: without the original JSON
 * kept at ingest, which no response needs and which is the biggest column of a row.
 */
export type PostWithAccountRow = Omit<PostRow, 'original_json'> & {
  [K in RenderedAccountColumn as `a_${K}`]: AccountRow[K];
};

/** The columns the ranking engine needs. */
export interface RankableRow {
  id: string;
  account_id: string;
  username: string;
  plain_text: string;
  tag_names: string;
  language: string | null;
  created_at_ms: number;
  favourites_count: number;
  reblogs_count: number;
  replies_count: number;
  bookmarks_count: number;
  reblog_of_id: string | null;
  visibility: string;
  sensitive: number;
  /** A reblog's original's `sensitive` (null for a post that is not a reblog, or whose original is gone). */
  original_sensitive: number | null;
}

type RenderedPostColumn = Exclude<keyof PostRow, 'original_json'>;
type RenderedAccountColumn = Exclude<keyof AccountRow, 'original_json'>;

// Records, so that a column added to the tables must be listed here (or the build fails).
const RENDERED_POST: Record<RenderedPostColumn, true> = {
  id: true,
  sort_key: true,
  account_id: true,
  uri: true,
  url: true,
  content: true,
  plain_text: true,
  spoiler_text: true,
  visibility: true,
  sensitive: true,
  language: true,
  in_reply_to_id: true,
  in_reply_to_account_id: true,
  reblog_of_id: true,
  tag_names: true,
  created_at: true,
  created_at_ms: true,
  edited_at: true,
  favourites_count: true,
  reblogs_count: true,
  replies_count: true,
  bookmarks_count: true,
  extras_json: true,
  ingested_at: true,
  origin_host: true,
  source_instance: true,
};
const RENDERED_ACCOUNT: Record<RenderedAccountColumn, true> = {
  id: true,
  username: true,
  acct: true,
  display_name: true,
  note: true,
  url: true,
  uri: true,
  avatar: true,
  header: true,
  locked: true,
  bot: true,
  group: true,
  followers_count: true,
  following_count: true,
  statuses_count: true,
  created_at: true,
  extras_json: true,
};
const POST_COLUMNS = Object.keys(RENDERED_POST) as RenderedPostColumn[];
const ACCOUNT_COLUMNS = Object.keys(RENDERED_ACCOUNT) as RenderedAccountColumn[];

function withAccount(db: Kysely<Database>) {
  return db
    .selectFrom('posts')
    .innerJoin('accounts', 'accounts.id', 'posts.account_id')
    .select(POST_COLUMNS.map((c) => `posts.${c}` as const))
    .select(ACCOUNT_COLUMNS.map((c) => `accounts.${c} as a_${c}` as const));
}

// Records, so that a column added to the tables must be written here too (or the build fails).
const STORED_ACCOUNT: Record<keyof AccountsTable, true> = { ...RENDERED_ACCOUNT, original_json: true };
const STORED_POST: Record<keyof PostsTable, true> = { ...RENDERED_POST, original_json: true };
const STORED_ACCOUNT_COLUMNS = Object.keys(STORED_ACCOUNT) as (keyof AccountsTable)[];
const STORED_POST_COLUMNS = Object.keys(STORED_POST) as (keyof PostsTable)[];

/** A post's row with its tags (which replace the stored ones). */
export interface PostWrite {
  row: Insertable<PostsTable>;
  tags: readonly string[];
}

/** Inserts or replaces accounts in multi-row statements; of rows sharing an id, the last wins. */
export async function upsertAccounts(db: Kysely<Database>, rows: readonly Insertable<AccountsTable>[]): Promise<void> {
  const byId = new Map(rows.map((row) => [row.id, row]));
  await bulkInsert(
    db,
    'accounts',
    STORED_ACCOUNT_COLUMNS,
    [...byId.values()].map((row) => valuesOf(row, STORED_ACCOUNT_COLUMNS)),
    {
      target: ['id'],
    },
  );
}

/** Inserts or replaces posts and their tags in multi-row statements; of posts sharing an id, the last wins. */
export async function upsertPosts(db: Kysely<Database>, posts: readonly PostWrite[]): Promise<void> {
  const byId = new Map(posts.map((post) => [post.row.id, post]));
  const unique = [...byId.values()];
  await bulkInsert(
    db,
    'posts',
    STORED_POST_COLUMNS,
    unique.map((post) => valuesOf(post.row, STORED_POST_COLUMNS)),
    { target: ['id'] },
  );
  const ids = [...byId.keys()];
  for (let i = 0; i < ids.length; i += ID_CHUNK) {
    await db
      .deleteFrom('post_tags')
      .where('post_id', 'in', ids.slice(i, i + ID_CHUNK))
      .execute();
  }
  await bulkInsert(
    db,
    'post_tags',
    ['post_id', 'tag', 'sort_key'],
    unique.flatMap((post) => post.tags.map((tag) => [post.row.id, tag, post.row.sort_key])),
  );
}

/** Ids per `DELETE … IN (…)`: well under SQLite's bound on parameters. */
const ID_CHUNK = 500;

function valuesOf<T extends object>(row: T, columns: readonly (keyof T)[]): unknown[] {
  return columns.map((c) => row[c] ?? null);
}

/** Posts (with authors) by id, in no particular order. */
export async function findPostsWithAccounts(db: Kysely<Database>, ids: readonly string[]): Promise<PostWithAccountRow[]> {
  if (ids.length === 0) return [];
  return (await withAccount(db).where('posts.id', 'in', ids).execute()) as PostWithAccountRow[];
}

export interface PostListFilter {
  accountId?: string;
  tag?: string;
  /** Sort keys: older than `maxKey`, newer than `sinceKey` / `minKey`. */
  maxKey?: string;
  sinceKey?: string;
  minKey?: string;
  limit: number;
}

/** A page of posts, newest first (with `minKey`: the oldest ones right after it, still returned newest first). */
export async function listPosts(db: Kysely<Database>, filter: PostListFilter): Promise<PostWithAccountRow[]> {
  let query = withAccount(db);
  if (filter.accountId !== undefined) query = query.where('posts.account_id', '=', filter.accountId);
  if (filter.tag !== undefined) {
    const tag = filter.tag;
    query = query.where('posts.id', 'in', (eb) => eb.selectFrom('post_tags').select('post_id').where('tag', '=', tag));
  }
  if (filter.maxKey !== undefined) query = query.where('posts.sort_key', '<', filter.maxKey);
  if (filter.sinceKey !== undefined) query = query.where('posts.sort_key', '>', filter.sinceKey);
  if (filter.minKey !== undefined) query = query.where('posts.sort_key', '>', filter.minKey);
  const ascending = filter.minKey !== undefined;
  const rows = (await query
    .orderBy('posts.sort_key', ascending ? 'asc' : 'desc')
    .limit(filter.limit)
    .execute()) as PostWithAccountRow[];
  return ascending ? rows.reverse() : rows;
}

/** Deletes a post and its reblogs (tags, interactions and feedback cascade); returns the ids deleted. */
export async function deletePost(db: Kysely<Database>, id: string): Promise<string[]> {
  const reblogs = await db.deleteFrom('posts').where('reblog_of_id', '=', id).returning('id').execute();
  const result = await db.deleteFrom('posts').where('id', '=', id).returning('id').execute();
  if (result.length === 0) return [];
  return [id, ...reblogs.map((r) => r.id)];
}

const RANKABLE = [
  'posts.id',
  'posts.account_id',
  'accounts.username',
  'posts.plain_text',
  'posts.tag_names',
  'posts.language',
  'posts.created_at_ms',
  'posts.favourites_count',
  'posts.reblogs_count',
  'posts.replies_count',
  'posts.bookmarks_count',
  'posts.reblog_of_id',
  'posts.visibility',
  'posts.sensitive',
  'original.sensitive as original_sensitive',
] as const;

/** A reblog shows its original, so it is sensitive when the original is (its own flag is usually false): the original's flag comes along. */
function rankable(db: Kysely<Database>) {
  return db
    .selectFrom('posts')
    .innerJoin('accounts', 'accounts.id', 'posts.account_id')
    .leftJoin('posts as original', 'original.id', 'posts.reblog_of_id')
    .select(RANKABLE);
}

/** Rows read per place in the pool before the shares apply: a flood of one source is passed over, not read to its end. */
const POOL_READ_FACTOR = 20;

/**
 * The candidate pool: the `recent` newest public posts and the `popular` most engaging ones,
 * each list under the source shares (src/ranking/source-shares.ts: no instance or author takes
 * more than its share while other posts are available).
 */
export async function loadCandidateRows(
  db: Kysely<Database>,
  recent: number,
  popular: number,
  shares: SourceShares = DEFAULT_SOURCE_SHARES,
  createdNotAfterMs?: number,
): Promise<RankableRow[]> {
  const sourced = (query: ReturnType<typeof sources>, n: number) =>
    query
      .limit(n * POOL_READ_FACTOR)
      .execute()
      .then((rows) =>
        takeWithinShares(
          rows.map((row) => ({ id: row.id, sourceInstance: row.source_instance, accountId: row.account_id })),
          n,
          shares,
        ),
      );
  const newest = await sourced(sources(db, createdNotAfterMs).orderBy('created_at_ms', 'desc'), recent);
  const engaging = await sourced(
    sources(db, createdNotAfterMs).orderBy(
      (eb) =>
        eb(
          eb(eb('favourites_count', '*', ENGAGEMENT_WEIGHTS.favourites), '+', eb('reblogs_count', '*', ENGAGEMENT_WEIGHTS.reblogs)),
          '+',
          eb('replies_count', '*', ENGAGEMENT_WEIGHTS.replies),
        ),
      'desc',
    ),
    popular,
  );
  const ids = [...new Set([...newest, ...engaging].map((item) => item.id))];
  const byId = new Map<string, RankableRow>();
  for (let i = 0; i < ids.length; i += ID_CHUNK) {
    for (const row of await findRankableRows(db, ids.slice(i, i + ID_CHUNK))) byId.set(row.id, row);
  }
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** What the shares read of the recommendable posts (created by `createdNotAfterMs`, when given). */
function sources(db: Kysely<Database>, createdNotAfterMs?: number) {
  const query = db.selectFrom('posts').select(['id', 'source_instance', 'account_id']).where('visibility', 'in', ['public', 'unlisted']);
  return createdNotAfterMs === undefined ? query : query.where('created_at_ms', '<=', createdNotAfterMs);
}

/** Rankable columns of posts by id (for building profiles from history). */
export async function findRankableRows(db: Kysely<Database>, ids: readonly string[]): Promise<RankableRow[]> {
  if (ids.length === 0) return [];
  return rankable(db).where('posts.id', 'in', ids).execute();
}

export interface CountDeltas {
  favourites?: number;
  reblogs?: number;
  bookmarks?: number;
}

/** A post's counters after a change, with what an interaction learns from (author, tags, text). */
export type AdjustedPostRow = Pick<
  PostRow,
  | 'id'
  | 'account_id'
  | 'plain_text'
  | 'tag_names'
  | 'created_at_ms'
  | 'favourites_count'
  | 'reblogs_count'
  | 'replies_count'
  | 'bookmarks_count'
>;

/** Arguments: post id, then the favourites, reblogs and bookmarks deltas. */
const adjustPostCountsQuery = queryTemplate((db: Kysely<Database>, [postId, favourites, reblogs, bookmarks]) =>
  db
    .updateTable('posts')
    .set((eb) => ({
      favourites_count: greatest(eb('favourites_count', '+', favourites as number), 0),
      reblogs_count: greatest(eb('reblogs_count', '+', reblogs as number), 0),
      bookmarks_count: greatest(eb('bookmarks_count', '+', bookmarks as number), 0),
    }))
    .where('id', '=', postId as string)
    .returning([
      'id',
      'account_id',
      'plain_text',
      'tag_names',
      'created_at_ms',
      'favourites_count',
      'reblogs_count',
      'replies_count',
      'bookmarks_count',
    ]),
);

/**
 * Adds to a post's counters (never below zero) and returns the new counts with the post's
 * author, tags and text, in one statement; undefined when there is no such post.
 */
export async function adjustPostCounts(db: Kysely<Database>, postId: string, deltas: CountDeltas): Promise<AdjustedPostRow | undefined> {
  const result = await adjustPostCountsQuery(db, [postId, deltas.favourites ?? 0, deltas.reblogs ?? 0, deltas.bookmarks ?? 0]);
  return result.rows[0];
}

/**
 * adjustPostCounts for many posts (ids unique), without the rows back: one statement per
 * several thousand posts, joining their deltas as a VALUES list (a bulk load's 100,000 posts
 * took one statement each). Ids that are no post change nothing.
 */
export async function adjustManyPostCounts(db: Kysely<Database>, deltas: ReadonlyMap<string, CountDeltas>): Promise<void> {
  const all = [...deltas];
  const perStatement = rowsPerStatement(4);
  for (let start = 0; start < all.length; start += perStatement) {
    // CAST: PostgreSQL would type the parameters of a VALUES list as text.
    const values = all
      .slice(start, start + perStatement)
      .map(
        ([id, d]) =>
          sql`(${id}, CAST(${d.favourites ?? 0} AS INTEGER), CAST(${d.reblogs ?? 0} AS INTEGER), CAST(${d.bookmarks ?? 0} AS INTEGER))`,
      );
    // A VALUES list's columns are column1, column2, … in SQLite and PostgreSQL alike.
    await sql`UPDATE posts SET
        favourites_count = ${greatest(sql`posts.favourites_count + d.column2`, 0)},
        reblogs_count = ${greatest(sql`posts.reblogs_count + d.column3`, 0)},
        bookmarks_count = ${greatest(sql`posts.bookmarks_count + d.column4`, 0)}
      FROM (VALUES ${sql.join(values)}) AS d
      WHERE posts.id = d.column1`.execute(db);
  }
}

/**
 * The original public posts created since `sinceMs` that may trend, with their source and
 * author (for the shares). Not sensitive ones: trending is read by nobody in particular, so no
 * reader's `allow_sensitive` applies (Mastodon's own trends leave them out too).
 */
export async function trendablePostRows(
  db: Kysely<Database>,
  sinceMs: number,
): Promise<Pick<PostRow, 'id' | 'created_at_ms' | 'source_instance' | 'account_id'>[]> {
  return db
    .selectFrom('posts')
    .select(['id', 'created_at_ms', 'source_instance', 'account_id'])
    .where('created_at_ms', '>=', sinceMs)
    .where('visibility', '=', 'public')
    .where('reblog_of_id', 'is', null)
    .where('sensitive', '=', 0)
    .execute();
}

/** Number of stored posts. */
export async function countPosts(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('posts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A post's counters, if the post exists. */
export async function findPostCounts(
  db: Kysely<Database>,
  postId: string,
): Promise<Pick<PostRow, 'favourites_count' | 'reblogs_count' | 'replies_count' | 'bookmarks_count'> | undefined> {
  return db
    .selectFrom('posts')
    .select(['favourites_count', 'reblogs_count', 'replies_count', 'bookmarks_count'])
    .where('id', '=', postId)
    .executeTakeFirst();
}
