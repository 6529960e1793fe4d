/**
 * The reads of accounts, posts and interactions that follow recommendations and account search
 * need. Every list is bounded: a request reads at most a few thousand rows.
 */
import { sql, type Kysely } from 'kysely';
import { idForUri } from '../../src/mastodon/status-origin.js';
import type { Database } from '../platform/db/database.js';

/** What the consent rules and the ranking read of an account. */
export interface AccountRow {
  id: string;
  uri: string;
  username: string;
  acct: string;
  display_name: string;
  note: string;
  extras_json: string;
  followers_count: number;
}

const ACCOUNT_COLUMNS = ['id', 'uri', 'username', 'acct', 'display_name', 'note', 'extras_json', 'followers_count'] as const;

/** The service's id of the account whose ActivityPub id is `uri`. */
export async function accountIdByUri(db: Kysely<Database>, uri: string): Promise<string | undefined> {
  // Of several rows for one uri (stored before identity by URI), the smallest id, as the posts feature reads it.
  const row = await db.selectFrom('accounts').select('id').where('uri', '=', uri).orderBy('id').limit(1).executeTakeFirst();
  return row?.id;
}

/** The service's id of the post whose ActivityPub id is `uri`. */
export async function postIdByUri(db: Kysely<Database>, uri: string): Promise<string | undefined> {
  const row = await db.selectFrom('posts').select('id').where('uri', '=', uri).executeTakeFirst();
  return row?.id;
}

/** An id for a new account first seen at `uri` (the posts feature's scheme: idForUri), unused by any stored account. */
export async function newAccountId(db: Kysely<Database>, uri: string, createdAtMs: number): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const id = idForUri(createdAtMs, uri, attempt);
    if ((await db.selectFrom('accounts').select('id').where('id', '=', id).executeTakeFirst()) === undefined) return id;
  }
}

/** The user ids of an account (`<its id at an instance>@<instance>`, the ids its Mastodon tokens act under). */
export async function userIdsOfAccount(db: Kysely<Database>, accountId: string): Promise<string[]> {
  const rows = await db.selectFrom('account_instance_ids').select(['instance', 'local_id']).where('account_id', '=', accountId).execute();
  return rows.map((row) => `${row.local_id}@${row.instance}`);
}

/** The posts of the users' newest interactions, newest first (distinct). */
export async function engagedPostIds(db: Kysely<Database>, userIds: readonly string[], limit: number): Promise<string[]> {
  if (userIds.length === 0) return [];
  const rows = await db
    .selectFrom('interactions')
    .select('post_id')
    .where('user_id', 'in', userIds)
    .orderBy('created_at_ms', 'desc')
    .limit(limit)
    .execute();
  return [...new Set(rows.map((row) => row.post_id))];
}

/** The author's newest posts. */
export async function postIdsOfAuthor(db: Kysely<Database>, accountId: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('posts')
    .select('id')
    .where('account_id', '=', accountId)
    .orderBy('created_at_ms', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** The authors of posts, by post id. */
export async function authorsOfPosts(db: Kysely<Database>, postIds: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < postIds.length; i += 500) {
    const rows = await db
      .selectFrom('posts')
      .select(['id', 'account_id'])
      .where('id', 'in', postIds.slice(i, i + 500))
      .execute();
    for (const row of rows) out.set(row.id, row.account_id);
  }
  return out;
}

/** The users who engaged with the posts, with how many of them each engaged with, most first (the users in `exclude` left out). */
export async function engagersOf(
  db: Kysely<Database>,
  postIds: readonly string[],
  exclude: readonly string[],
  limit: number,
): Promise<{ userId: string; shared: number }[]> {
  if (postIds.length === 0) return [];
  let query = db
    .selectFrom('interactions')
    .select(['user_id', sql<number>`count(distinct post_id)`.as('shared')])
    .where('post_id', 'in', postIds);
  if (exclude.length > 0) query = query.where('user_id', 'not in', exclude);
  const rows = await query.groupBy('user_id').orderBy('shared', 'desc').orderBy('user_id').limit(limit).execute();
  return rows.map((row) => ({ userId: row.user_id, shared: Number(row.shared) }));
}

/** The authors each user engaged with since `sinceMs` (one row per user and author). */
export async function authorsEngagedBy(
  db: Kysely<Database>,
  userIds: readonly string[],
  sinceMs: number,
  limit: number,
): Promise<{ userId: string; accountId: string }[]> {
  if (userIds.length === 0) return [];
  const rows = await db
    .selectFrom('interactions')
    .innerJoin('posts', 'posts.id', 'interactions.post_id')
    .select(['interactions.user_id', 'posts.account_id'])
    .distinct()
    .where('interactions.user_id', 'in', userIds)
    .where('interactions.created_at_ms', '>=', sinceMs)
    .limit(limit)
    .execute();
  return rows.map((row) => ({ userId: row.user_id, accountId: row.account_id }));
}

/**
 * The authors whose posts since `sinceMs` drew the most distinct engagers, most first; with
 * `language`, only posts in it (RFC 4647 basic filtering: the tag, or the tag followed by `-`).
 */
export async function popularAuthors(
  db: Kysely<Database>,
  sinceMs: number,
  language: string | undefined,
  limit: number,
): Promise<{ accountId: string; engagers: number }[]> {
  let query = db
    .selectFrom('interactions')
    .innerJoin('posts', 'posts.id', 'interactions.post_id')
    .select(['posts.account_id', sql<number>`count(distinct interactions.user_id)`.as('engagers')])
    .where('posts.created_at_ms', '>=', sinceMs)
    .where('posts.visibility', '=', 'public');
  if (language !== undefined && language !== '*') {
    const range = language.toLowerCase();
    query = query.where((eb) => eb.or([eb(sql`lower(posts.language)`, '=', range), eb(sql`lower(posts.language)`, 'like', `${range}-%`)]));
  }
  const rows = await query.groupBy('posts.account_id').orderBy('engagers', 'desc').orderBy('posts.account_id').limit(limit).execute();
  return rows.map((row) => ({ accountId: row.account_id, engagers: Number(row.engagers) }));
}

/** Accounts by the service's id. */
export async function accountsByIds(db: Kysely<Database>, ids: readonly string[]): Promise<AccountRow[]> {
  const out: AccountRow[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    out.push(
      ...(await db
        .selectFrom('accounts')
        .select(ACCOUNT_COLUMNS)
        .where('id', 'in', ids.slice(i, i + 500))
        .execute()),
    );
  }
  return out;
}

/** The languages each account posted in (its stored posts), by account id. */
export async function languagesOf(db: Kysely<Database>, accountIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (let i = 0; i < accountIds.length; i += 500) {
    const rows = await db
      .selectFrom('posts')
      .select(['account_id', 'language'])
      .distinct()
      .where('account_id', 'in', accountIds.slice(i, i + 500))
      .where('language', 'is not', null)
      .execute();
    for (const row of rows) {
      const list = out.get(row.account_id) ?? [];
      list.push(row.language!);
      out.set(row.account_id, list);
    }
  }
  return out;
}

/** `text` with LIKE's wildcards escaped (escape character `\`). */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Accounts whose handle, display name or bio contains every one of `words` (case-insensitive),
 * at most `limit` of them, the most followed first (the relevance order is the caller's).
 */
export async function accountsMatching(db: Kysely<Database>, words: readonly string[], limit: number): Promise<AccountRow[]> {
  if (words.length === 0) return [];
  let query = db.selectFrom('accounts').select(ACCOUNT_COLUMNS);
  for (const word of words) {
    const pattern = `%${likeLiteral(word.toLowerCase())}%`;
    query = query.where((eb) =>
      eb.or(
        ['acct', 'username', 'display_name', 'note'].map((column) =>
          eb(sql`lower(${sql.ref(column)})`, 'like', sql`${pattern} escape '\\'`),
        ),
      ),
    );
  }
  return query.orderBy('followers_count', 'desc').orderBy('id').limit(limit).execute();
}
