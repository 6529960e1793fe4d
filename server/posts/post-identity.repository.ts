/**
 * SQL of post and account identity: posts and accounts by their `uri`, the service's ids for
 * new ones, and each instance's own ids for them (post_instance_ids, account_instance_ids).
 */
import type { Kysely } from 'kysely';
import { idForUri } from '../../src/mastodon/status-origin.js';
import { sortKeyOf } from '../../src/post-ids.js';
import type { Database } from '../platform/db/database.js';
import { bulkInsert } from '../platform/db/bulk-insert.js';
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

/** Both mapping tables, read the same way: by the instance's ids or by the service's. */
const MAPPINGS = {
  posts: { table: 'post_instance_ids', target: 'post_id' },
  accounts: { table: 'account_instance_ids', target: 'account_id' },
} as const;

/** Records `instance`'s own ids in one mapping table (an instance's id names one object: a later mapping replaces an earlier). */
async function writeMapping(
  db: Kysely<Database>,
  kind: keyof typeof MAPPINGS,
  instance: string,
  mappings: readonly { localId: string; id: string }[],
): Promise<void> {
  const { table, target } = MAPPINGS[kind];
  const unique = new Map(mappings.map((m) => [m.localId, m.id]));
  await bulkInsert(
    db,
    table,
    ['instance', 'local_id', target],
    [...unique].map(([localId, id]) => [instance, localId, id]),
    { target: ['instance', 'local_id'] },
  );
}

/** Records `instance`'s own ids for posts. */
export function mapPosts(db: Kysely<Database>, instance: string, mappings: readonly { localId: string; id: string }[]): Promise<void> {
  return writeMapping(db, 'posts', instance, mappings);
}

/** Records `instance`'s own ids for accounts. */
export function mapAccounts(db: Kysely<Database>, instance: string, mappings: readonly { localId: string; id: string }[]): Promise<void> {
  return writeMapping(db, 'accounts', instance, mappings);
}

/** Both mapping tables as one shape (each has one of the target columns). */
type MappingDb = Kysely<
  Record<'post_instance_ids' | 'account_instance_ids', { instance: string; local_id: string; post_id: string; account_id: string }>
>;

/** (instance's id → service's id) or, `reverse`, (service's id → instance's id) of one mapping table, for `keys`. */
async function readMapping(
  db: Kysely<Database>,
  kind: keyof typeof MAPPINGS,
  instance: string,
  keys: readonly string[],
  reverse: boolean,
): Promise<Map<string, string>> {
  const { table, target } = MAPPINGS[kind];
  const rows = await inChunks(
    [...new Set(keys)],
    (chunk) =>
      (db as unknown as MappingDb)
        .selectFrom(table)
        .select(['local_id', `${target} as target`])
        .where('instance', '=', instance)
        .where(reverse ? target : 'local_id', 'in', chunk)
        .execute() as Promise<{ local_id: string; target: string }[]>,
  );
  return new Map(rows.map((row) => (reverse ? [row.target, row.local_id] : [row.local_id, row.target])));
}

/** The service's post ids for `instance`'s own ids (unknown ones absent). */
export function postIdsForLocal(db: Kysely<Database>, instance: string, localIds: readonly string[]): Promise<Map<string, string>> {
  return readMapping(db, 'posts', instance, localIds, false);
}

/** The service's account ids for `instance`'s own ids. */
export function accountIdsForLocal(db: Kysely<Database>, instance: string, localIds: readonly string[]): Promise<Map<string, string>> {
  return readMapping(db, 'accounts', instance, localIds, false);
}

/** `instance`'s own ids for the service's posts (posts it never named absent). */
export function localPostIds(db: Kysely<Database>, instance: string, postIds: readonly string[]): Promise<Map<string, string>> {
  return readMapping(db, 'posts', instance, postIds, true);
}

/** `instance`'s own ids for the service's accounts. */
export function localAccountIds(db: Kysely<Database>, instance: string, accountIds: readonly string[]): Promise<Map<string, string>> {
  return readMapping(db, 'accounts', instance, accountIds, true);
}

/** The stored accounts' `created_at` for (instance, that instance's account id) pairs, as `<local id>@<instance>` → created_at. */
export async function accountCreatedAtByInstanceIds(
  db: Kysely<Database>,
  pairs: readonly { instance: string; localId: string }[],
): Promise<Map<string, string>> {
  const byInstance = new Map<string, string[]>();
  for (const { instance, localId } of pairs) {
    const list = byInstance.get(instance);
    if (list === undefined) byInstance.set(instance, [localId]);
    else list.push(localId);
  }
  const out = new Map<string, string>();
  for (const [instance, localIds] of byInstance)
    for (let i = 0; i < localIds.length; i += 500) {
      const rows = await db
        .selectFrom('account_instance_ids')
        .innerJoin('accounts', 'accounts.id', 'account_instance_ids.account_id')
        .select(['account_instance_ids.local_id', 'accounts.created_at'])
        .where('account_instance_ids.instance', '=', instance)
        .where('account_instance_ids.local_id', 'in', localIds.slice(i, i + 500))
        .execute();
      for (const row of rows) out.set(`${row.local_id}@${instance}`, row.created_at);
    }
  return out;
}
