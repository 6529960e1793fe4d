/**
 * Statuses an instance sent (a timeline page, a proxied action's answer, a search that resolved
 * one), stored by their ActivityPub `uri` under the origin's word only (decisions.md):
 *
 * - A post is its `uri`; an account its `uri`. The first copy seen creates it under an id of the
 *   service's own (idForUri); every instance's id for it is kept as a mapping (instance, local id).
 * - Content, author and visibility change only when the page comes from the origin (the instance
 *   at the host of the `uri`); another instance's copy of a stored post adds its mapping and
 *   nothing else. An account's profile likewise changes only from its own instance.
 * - Counters are the service's own: a new post starts at 0 and counts the interactions stored
 *   for it; an instance's `favourites_count` is never taken (an instance can claim anything).
 * - HTML (content, an account's note and field values) is sanitised to Mastodon's allow-list.
 * - A reply's `in_reply_to_id` is the instance's id: kept as the service's id of that post when
 *   the instance's id is mapped, else null (the origin's id means nothing to other readers).
 *
 * Runs inside the caller's transaction; the caller announces `written` after its commit.
 */
import type { Insertable, Kysely } from 'kysely';
import { accountDomain, isOriginOf, originHostOf } from '../../src/mastodon/status-origin.js';
import { sanitizeStatusHtml } from '../../src/mastodon/sanitize-status-html.js';
import type { AccountInput, StatusInput } from '../../src/schemas/post.schema.js';
import type { Database } from '../platform/db/database.js';
import { accountRow, postRow, statusTags } from './post.mapper.js';
import * as identity from './post-identity.repository.js';
import { upsertAccounts, upsertPosts, type PostWrite } from './post.repository.js';
import type { AccountsTable, PostsTable } from './posts.tables.js';

/** What storing an instance's statuses did. */
export interface InstanceStatusesWritten {
  /** The service's ids of posts written now (new, or changed by their origin): to announce. */
  readonly written: string[];
  /** Per input, in order: the service's id of the status, or undefined when it was not stored (no usable uri, or over `maxNew`). */
  readonly ids: (string | undefined)[];
  /** How many posts were new (created now). */
  readonly created: number;
}

type StatusCore = Omit<StatusInput, 'reblog'>;

interface Item {
  core: StatusCore;
  uri: string;
  /** The item this one reblogs. */
  original: Item | undefined;
}

/** Stores `inputs` as `instance` (canonical host[:port]) sent them; see the file's comment. */
export async function writeInstanceStatuses(
  trx: Kysely<Database>,
  instance: string,
  inputs: readonly StatusInput[],
  nowMs: number,
  /** At most this many new posts (the instance's quota); statuses beyond it are not stored. */
  maxNew = Number.POSITIVE_INFINITY,
): Promise<InstanceStatusesWritten> {
  const items: Item[] = [];
  const tops: (Item | undefined)[] = [];
  for (const input of inputs) {
    const { reblog, ...core } = input;
    const original: Item | undefined = reblog && usable(reblog) ? { core: reblog, uri: reblog.uri!, original: undefined } : undefined;
    if (original) items.push(original);
    const top = (!reblog || original !== undefined) && usable(core) ? { core, uri: core.uri!, original } : undefined;
    if (top) items.push(top);
    tops.push(top);
  }
  const admitted = await withinQuota(trx, items, maxNew);
  const accountIds = await resolveAccounts(trx, instance, admitted, nowMs);
  const postIds = await resolvePosts(trx, instance, admitted, accountIds, nowMs);
  await identity.mapPosts(
    trx,
    instance,
    admitted.flatMap((item) => (typeof item.core.id === 'string' ? [{ localId: item.core.id, id: postIds.ids.get(item.uri)! }] : [])),
  );
  const kept = new Set(admitted);
  const ids = tops.map((top) => (top === undefined || !kept.has(top) ? undefined : postIds.ids.get(top.uri)));
  return { written: postIds.written, ids, created: postIds.created };
}

/** The items left once new posts beyond `maxNew` (in page order) are dropped, with the reblogs of dropped originals. */
async function withinQuota(trx: Kysely<Database>, items: readonly Item[], maxNew: number): Promise<Item[]> {
  if (!Number.isFinite(maxNew)) return [...items];
  const stored = await identity.postsByUri(trx, [...new Set(items.map((item) => item.uri))]);
  const newUris = new Set<string>();
  const dropped = new Set<Item>();
  for (const item of items) {
    if (item.original !== undefined && dropped.has(item.original)) dropped.add(item);
    else if (!stored.has(item.uri) && !newUris.has(item.uri)) {
      if (newUris.size < maxNew) newUris.add(item.uri);
      else dropped.add(item);
    }
  }
  return items.filter((item) => !dropped.has(item));
}

/** A status the rules can place: an http(s) uri of its own and an account with one. */
function usable(status: StatusCore): boolean {
  return originHostOf(status.uri) !== '' && originHostOf(accountUriOf(status.account)) !== '';
}

function accountUriOf(account: AccountInput): string | undefined {
  return account.uri ?? account.url;
}

/** The service's id of each item's account by account uri; accounts new or changed by their own instance are written. */
async function resolveAccounts(
  trx: Kysely<Database>,
  instance: string,
  items: readonly Item[],
  nowMs: number,
): Promise<Map<string, string>> {
  const byUri = new Map<string, AccountInput>();
  for (const { core } of items) byUri.set(accountUriOf(core.account)!, core.account);
  const ids = await identity.accountIdsByUri(trx, [...byUri.keys()]);
  const fresh = [...byUri].filter(([uri]) => !ids.has(uri));
  const freshIds = await identity.unusedAccountIds(
    trx,
    fresh.map(([uri, account]) => ({ uri, createdAtMs: Date.parse(account.created_at ?? '') || nowMs })),
  );
  const nowIso = new Date(nowMs).toISOString();
  const rows: Insertable<AccountsTable>[] = [];
  for (const [uri, account] of byUri) {
    const id = ids.get(uri) ?? freshIds.get(uri)!;
    if (!ids.has(uri) || isOriginOf(instance, uri)) rows.push(accountRow(storedAccount(account, id, uri), nowIso, false));
    ids.set(uri, id);
  }
  await upsertAccounts(trx, rows);
  const localIds = [...byUri].flatMap(([uri, account]) =>
    typeof account.id === 'string' ? [{ localId: account.id, id: ids.get(uri)! }] : [],
  );
  await identity.mapAccounts(trx, instance, localIds);
  return ids;
}

/** An account as stored: the service's id, `acct` always with its domain, HTML sanitised. */
function storedAccount(account: AccountInput, id: string, uri: string): AccountInput {
  const record = account as Record<string, unknown>;
  const fields = Array.isArray(record.fields)
    ? (record.fields as unknown[]).map((field) =>
        typeof field === 'object' && field !== null && typeof (field as { value?: unknown }).value === 'string'
          ? { ...field, value: sanitizeStatusHtml((field as { value: string }).value) }
          : field,
      )
    : record.fields;
  const acct = account.acct ?? account.username;
  return {
    ...account,
    id,
    uri,
    acct: acct.includes('@') ? acct : `${acct}@${accountDomain(acct, uri)}`,
    ...(account.note === undefined ? {} : { note: sanitizeStatusHtml(account.note) }),
    ...(fields === undefined ? {} : { fields }),
  };
}

/** The service's id of each item by uri, and the ids written (new posts, and posts whose origin sent them). */
async function resolvePosts(
  trx: Kysely<Database>,
  instance: string,
  items: readonly Item[],
  accountIds: ReadonlyMap<string, string>,
  nowMs: number,
): Promise<{ ids: Map<string, string>; written: string[]; created: number }> {
  const uris = [...new Set(items.map((item) => item.uri))];
  const stored = await identity.postsByUri(trx, uris);
  const firstOf = new Map<string, Item>();
  for (const item of items) if (!firstOf.has(item.uri)) firstOf.set(item.uri, item);
  const fresh = [...firstOf.values()].filter((item) => !stored.has(item.uri));
  const freshIds = await identity.unusedPostIds(
    trx,
    fresh.map((item) => ({ uri: item.uri, createdAtMs: Date.parse(item.core.created_at ?? '') || nowMs })),
  );
  const ids = new Map<string, string>();
  for (const uri of uris) ids.set(uri, stored.get(uri)?.id ?? freshIds.get(uri)!);
  const replies = await identity.postIdsForLocal(
    trx,
    instance,
    items.flatMap((item) => (item.core.in_reply_to_id ? [item.core.in_reply_to_id] : [])),
  );
  const replyAccounts = await identity.accountIdsForLocal(
    trx,
    instance,
    items.flatMap((item) => (item.core.in_reply_to_account_id ? [item.core.in_reply_to_account_id] : [])),
  );
  const writes = new Map<string, PostWrite>();
  for (const item of firstOf.values()) {
    const existing = stored.get(item.uri);
    if (existing !== undefined && !isOriginOf(instance, item.uri)) continue;
    const id = ids.get(item.uri)!;
    const original = item.original;
    const reblogOfId = original === undefined ? null : ids.get(original.uri)!;
    const core: StatusCore = {
      ...item.core,
      id,
      account: { ...item.core.account, id: accountIds.get(accountUriOf(item.core.account)!)! },
      content: sanitizeStatusHtml(item.core.content),
      in_reply_to_id: (item.core.in_reply_to_id && replies.get(item.core.in_reply_to_id)) ?? null,
      in_reply_to_account_id: (item.core.in_reply_to_account_id && replyAccounts.get(item.core.in_reply_to_account_id)) ?? null,
      favourites_count: existing?.favourites_count ?? 0,
      reblogs_count: existing?.reblogs_count ?? 0,
      replies_count: existing?.replies_count ?? 0,
    };
    const row: Insertable<PostsTable> = { ...postRow(core, nowMs, reblogOfId, undefined), source_instance: instance };
    if (existing !== undefined) row.bookmarks_count = existing.bookmarks_count;
    const inherited = original === undefined ? undefined : (writes.get(ids.get(original.uri)!)?.row ?? stored.get(original.uri));
    if (inherited) {
      row.plain_text = inherited.plain_text;
      row.tag_names = inherited.tag_names;
    }
    writes.set(id, { row, tags: original === undefined ? statusTags(item.core) : [] });
  }
  await upsertPosts(trx, [...writes.values()]);
  return { ids, written: [...writes.keys()], created: fresh.length };
}
