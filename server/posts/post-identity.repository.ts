/**
 * SQL of post and account identity: posts and accounts by their `uri`, the service's ids for
 * new ones, and each instance's own ids for them (post_instance_ids, account_instance_ids).
 */
import type { Kysely } from 'kysely';
import { idForUri } from '../../src/mastodon/status-origin.js';
import { sortKeyOf } from '../../src/post-ids.js';
import type { Database } from '../db/database.js';
import { bulkInsert } from '../db/bulk-insert.js';
import type { PostRow } from './post.repository.js';

/** Values per `IN (…)`: well under SQLite's bound on parameters. */
const CHUNK = 500;

async function inChunks<T, R>(values: readonly T[], read: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < values.length; i += CHUNK) out.push(...(await read(values.slice(i, i + CHUNK))));
  return out;
}

/** What the origin rule needs of a stored post. */
export type StoredIdentity = Pick<
  PostRow,
  'id' | 'uri' | 'favourites_count' | 'reblogs_count' | 'replies_count' | 'bookmarks_count' | 'plain_text' | 'tag_names'
>;

/** Stored posts by uri. */
export async function postsByUri(db: Kysely<Database>, uris: readonly string[]): Promise<Map<string, StoredIdentity>> {
  const rows = await inChunks(uris, (chunk) =>
    db
      .selectFrom('posts')
      .select(['id', 'uri', 'favourites_count', 'reblogs_count', 'replies_count', 'bookmarks_count', 'plain_text', 'tag_names'])
      .where('uri', 'in', chunk)
      .execute(),
  );
  return new Map(rows.map((row) => [row.uri, row]));
}

/** Stored accounts' ids by uri (of several rows for one uri, written before identity by URI, the smallest id). */
export async function accountIdsByUri(db: Kysely<Database>, uris: readonly string[]): Promise<Map<string, string>> {
  const rows = await inChunks(uris, (chunk) =>
    db.selectFrom('accounts').select(['id', 'uri']).where('uri', 'in', chunk).orderBy('id', 'desc').execute(),
  );
  return new Map(rows.map((row) => [row.uri, row.id]));
}

interface NewObject {
  uri: string;
  createdAtMs: number;
}

/** Ids for new objects (idForUri), moved on past ids already taken by `taken`; by uri. */
async function unusedIds(objects: readonly NewObject[], taken: (ids: string[]) => Promise<Set<string>>): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let pending = objects.map((object) => ({ ...object, attempt: 0 }));
  const claimed = new Set<string>();
  while (pending.length > 0) {
    const proposed = pending.map((object) => ({ object, id: idForUri(object.createdAtMs, object.uri, object.attempt) }));
    const used = await taken(proposed.map((p) => p.id));
    pending = [];
    for (const { object, id } of proposed) {
      if (used.has(id) || claimed.has(id)) pending.push({ ...object, attempt: object.attempt + 1 });
      else {
        claimed.add(id);
        out.set(object.uri, id);
      }
    }
  }
  return out;
}

/** Service ids for new posts: no stored post has them (nor their sort keys). */
export async function unusedPostIds(db: Kysely<Database>, posts: readonly NewObject[]): Promise<Map<string, string>> {
  return unusedIds(posts, async (ids) => {
    const rows = await inChunks(ids, (chunk) =>
      db.selectFrom('posts').select('id').where('sort_key', 'in', chunk.map(sortKeyOf)).execute(),
    );
    return new Set(rows.map((row) => row.id));
  });
}

/** Service ids for new accounts. */
export async function unusedAccountIds(db: Kysely<Database>, accounts: readonly NewObject[]): Promise<Map<string, string>> {
  return unusedIds(accounts, async (ids) => {
    const rows = await inChunks(ids, (chunk) => db.selectFrom('accounts').select('id').where('id', 'in', chunk).execute());
    return new Set(rows.map((row) => row.id));
  });
}

/** Records `instance`'s own ids for posts (an instance's id names one status: a later mapping replaces an earlier). */
export async function mapPosts(
  db: Kysely<Database>,
  instance: string,
  mappings: readonly { localId: string; id: string }[],
): Promise<void> {
  const unique = new Map(mappings.map((m) => [m.localId, m.id]));
  await bulkInsert(
    db,
    'post_instance_ids',
    ['instance', 'local_id', 'post_id'],
    [...unique].map(([localId, id]) => [instance, localId, id]),
    { target: ['instance', 'local_id'] },
  );
}

/** Records `instance`'s own ids for accounts. */
export async function mapAccounts(
  db: Kysely<Database>,
  instance: string,
  mappings: readonly { localId: string; id: string }[],
): Promise<void> {
  const unique = new Map(mappings.map((m) => [m.localId, m.id]));
  await bulkInsert(
    db,
    'account_instance_ids',
    ['instance', 'local_id', 'account_id'],
    [...unique].map(([localId, id]) => [instance, localId, id]),
    { target: ['instance', 'local_id'] },
  );
}

/** The service's post ids for `instance`'s own ids (unknown ones absent). */
export async function postIdsForLocal(db: Kysely<Database>, instance: string, localIds: readonly string[]): Promise<Map<string, string>> {
  const rows = await inChunks([...new Set(localIds)], (chunk) =>
    db
      .selectFrom('post_instance_ids')
      .select(['local_id', 'post_id'])
      .where('instance', '=', instance)
      .where('local_id', 'in', chunk)
      .execute(),
  );
  return new Map(rows.map((row) => [row.local_id, row.post_id]));
}

/** The service's account ids for `instance`'s own ids. */
export async function accountIdsForLocal(
  db: Kysely<Database>,
  instance: string,
  localIds: readonly string[],
): Promise<Map<string, string>> {
  const rows = await inChunks([...new Set(localIds)], (chunk) =>
    db
      .selectFrom('account_instance_ids')
      .select(['local_id', 'account_id'])
      .where('instance', '=', instance)
      .where('local_id', 'in', chunk)
      .execute(),
  );
  return new Map(rows.map((row) => [row.local_id, row.account_id]));
}

/** `instance`'s own ids for the service's posts (posts it never named absent). */
export async function localPostIds(db: Kysely<Database>, instance: string, postIds: readonly string[]): Promise<Map<string, string>> {
  const rows = await inChunks([...new Set(postIds)], (chunk) =>
    db
      .selectFrom('post_instance_ids')
      .select(['local_id', 'post_id'])
      .where('instance', '=', instance)
      .where('post_id', 'in', chunk)
      .execute(),
  );
  return new Map(rows.map((row) => [row.post_id, row.local_id]));
}

/** `instance`'s own ids for the service's accounts. */
export async function localAccountIds(db: Kysely<Database>, instance: string, accountIds: readonly string[]): Promise<Map<string, string>> {
  const rows = await inChunks([...new Set(accountIds)], (chunk) =>
    db
      .selectFrom('account_instance_ids')
      .select(['local_id', 'account_id'])
      .where('instance', '=', instance)
      .where('account_id', 'in', chunk)
      .execute(),
  );
  return new Map(rows.map((row) => [row.account_id, row.local_id]));
}
