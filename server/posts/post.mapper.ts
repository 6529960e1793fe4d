/**
 * Maps between stored rows, ingested Mastodon statuses, the Status wire shape and the
 * ranking engine's RankablePost.
 */
import type { Insertable } from 'kysely';
import { htmlToText, normaliseTag, type EngagedPost, type RankablePost } from '../../src/ranking/index.js';
import { parseWithinBounds, STATUS_BOUNDS } from '../../src/schemas/bounded-json.js';
import type { Account, AccountInput, Status, StatusInput } from '../../src/schemas/post.schema.js';
import { generatePostId, sortKeyOf } from '../../src/post-ids.js';
import { renderAccount, renderStatus } from '../../src/mastodon/entities.js';
import { originHostOf } from '../../src/mastodon/status-origin.js';
import type { PostRow, PostWithAccountRow, PostWrite, RankableRow } from './post.repository.js';
import type { AccountsTable, PostsTable } from './posts.tables.js';

/** ISO 8601 with milliseconds and Z, whatever precision or offset the input had. */
export function isoMs(value: string | number): string {
  return new Date(value).toISOString();
}

function origin(url: string | undefined): string {
  try {
    return url ? new URL(url).origin : 'https://localhost';
  } catch {
    return 'https://localhost';
  }
}

/** Row of an ingested account (its JSON kept when `keepOriginal` and it says more than id and username). */
export function accountRow(input: AccountInput, nowIso: string, keepOriginal = true): Insertable<AccountsTable> {
  const base = origin(input.url ?? input.uri);
  const fallbackUrl = `${base}/@${input.username}`;
  const record = input as Record<string, unknown>;
  return {
    id: input.id,
    username: input.username,
    acct: input.acct ?? input.username,
    display_name: input.display_name ?? input.username,
    note: input.note ?? '',
    url: input.url ?? fallbackUrl,
    uri: input.uri ?? input.url ?? fallbackUrl,
    avatar: input.avatar ?? `${base}/avatars/original/missing.png`,
    header: input.header ?? `${base}/headers/original/missing.png`,
    locked: input.locked ? 1 : 0,
    bot: input.bot ? 1 : 0,
    group: input.group ? 1 : 0,
    followers_count: input.followers_count ?? 0,
    following_count: input.following_count ?? 0,
    statuses_count: input.statuses_count ?? 0,
    created_at: isoMs(input.created_at ?? nowIso),
    extras_json: JSON.stringify({
      avatar_static: record.avatar_static ?? null,
      header_static: record.header_static ?? null,
      discoverable: typeof record.discoverable === 'boolean' ? record.discoverable : null,
      last_status_at: typeof record.last_status_at === 'string' ? record.last_status_at : null,
      emojis: Array.isArray(record.emojis) ? record.emojis : [],
      fields: Array.isArray(record.fields) ? record.fields : [],
      indexable: typeof record.indexable === 'boolean' ? record.indexable : null,
      hide_collections: typeof record.hide_collections === 'boolean' ? record.hide_collections : null,
      memorial: record.memorial === true,
      roles: Array.isArray(record.roles) ? record.roles : [],
      feature_approval: isObject(record.feature_approval) ? record.feature_approval : null,
    }),
    original_json: keepOriginal && Object.keys(input).length > 2 ? JSON.stringify(input) : null,
  };
}

type StatusCore = Omit<StatusInput, 'reblog'>;

/** Tags of a status: its `tags` entries, normalised and deduplicated. */
export function statusTags(input: StatusCore): string[] {
  const names = (input.tags ?? [])
    .map((t) => normaliseTag(typeof t === 'string' ? t : t.name))
    .filter((t) => /^[\p{L}\p{N}_]{1,100}$/u.test(t));
  return [...new Set(names)];
}

/** Row of an ingested (or created) status; `reblogOfId` links a reblog to its original. */
export function postRow(input: StatusCore, nowMs: number, reblogOfId: string | null, keepOriginal: unknown): Insertable<PostsTable> {
  const createdAtMs = input.created_at ? Date.parse(input.created_at) : nowMs;
  const id = input.id ?? generatePostId(createdAtMs);
  const record = input as Record<string, unknown>;
  const base = origin(input.account.url ?? input.account.uri);
  const tags = statusTags(input);
  const uri = input.uri ?? `${base}/users/${input.account.username}/statuses/${id}`;
  return {
    id,
    sort_key: sortKeyOf(id),
    account_id: input.account.id,
    uri,
    origin_host: originHostOf(uri),
    source_instance: '',
    url: input.url === undefined ? `${base}/@${input.account.username}/${id}` : input.url,
    content: input.content,
    plain_text: htmlToText(input.content),
    spoiler_text: input.spoiler_text ?? '',
    visibility: input.visibility ?? 'public',
    sensitive: input.sensitive ? 1 : 0,
    language: input.language ?? null,
    in_reply_to_id: input.in_reply_to_id ?? null,
    in_reply_to_account_id: input.in_reply_to_account_id ?? null,
    reblog_of_id: reblogOfId,
    tag_names: tags.join(' '),
    created_at: isoMs(createdAtMs),
    created_at_ms: createdAtMs,
    edited_at: input.edited_at ? isoMs(input.edited_at) : null,
    favourites_count: input.favourites_count ?? 0,
    reblogs_count: input.reblogs_count ?? 0,
    replies_count: input.replies_count ?? 0,
    bookmarks_count: 0,
    extras_json: JSON.stringify({
      media_attachments: Array.isArray(record.media_attachments) ? record.media_attachments : [],
      mentions: Array.isArray(record.mentions) ? record.mentions : [],
      emojis: Array.isArray(record.emojis) ? record.emojis : [],
      card: isObject(record.card) ? record.card : null,
      poll: isObject(record.poll) ? record.poll : null,
      application: isObject(record.application) ? record.application : null,
      quotes_count: typeof record.quotes_count === 'number' ? record.quotes_count : 0,
      quote_approval: isObject(record.quote_approval) ? record.quote_approval : null,
    }),
    original_json: keepOriginal === undefined ? null : JSON.stringify(keepOriginal),
    ingested_at: isoMs(nowMs),
  };
}

/** The rows of a status to store, in write order: a reblog's original comes before the reblog. */
export interface StatusRows {
  accounts: Insertable<AccountsTable>[];
  posts: PostWrite[];
  /** The id of the status itself (not of its original). */
  id: string;
}

/**
 * Rows of a status: its account and post, and a reblog's original with its account (the
 * reblog inherits the original's text and tags, and holds no tags of its own). With
 * `keepOriginals`, the JSON as sent is kept beside the columns (ingest); a generated data
 * set has nothing to keep.
 */
export function statusRows(input: StatusInput, nowMs: number, keepOriginals: boolean): StatusRows {
  const nowIso = isoMs(nowMs);
  const accounts: Insertable<AccountsTable>[] = [];
  const posts: PostWrite[] = [];
  let reblogOfId: string | null = null;
  let inherited: { plain_text: string; tag_names: string } | undefined;
  if (input.reblog) {
    const original = postRow(input.reblog, nowMs, null, keepOriginals ? input.reblog : undefined);
    accounts.push(accountRow(input.reblog.account, nowIso, keepOriginals));
    posts.push({ row: original, tags: statusTags(input.reblog) });
    reblogOfId = original.id;
    inherited = { plain_text: original.plain_text, tag_names: original.tag_names };
  }
  const row = { ...postRow(input, nowMs, reblogOfId, keepOriginals ? input : undefined), ...inherited };
  accounts.push(accountRow(input.account, nowIso, keepOriginals));
  posts.push({ row, tags: inherited ? [] : statusTags(input) });
  return { accounts, posts, id: row.id };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface AccountExtras {
  avatar_static: string | null;
  header_static: string | null;
  discoverable: boolean | null;
  last_status_at: string | null;
  emojis: unknown[];
  fields: unknown[];
  /** Mastodon 4.x fields, absent from rows stored before they were kept. */
  indexable?: boolean | null;
  hide_collections?: boolean | null;
  memorial?: boolean;
  roles?: unknown[];
  feature_approval?: Record<string, unknown> | null;
}

interface PostExtras {
  media_attachments: unknown[];
  mentions: unknown[];
  emojis: unknown[];
  card: Record<string, unknown> | null;
  poll: Record<string, unknown> | null;
  application: Record<string, unknown> | null;
  quotes_count?: number;
  quote_approval?: Record<string, unknown> | null;
}

const NO_ACCOUNT_EXTRAS: AccountExtras = {
  avatar_static: null,
  header_static: null,
  discoverable: null,
  last_status_at: null,
  emojis: [],
  fields: [],
};
const NO_POST_EXTRAS: PostExtras = { media_attachments: [], mentions: [], emojis: [], card: null, poll: null, application: null };

/**
 * Stored extras, or none when they break STATUS_BOUNDS: only a row written before ingest
 * checked the bounds can, and handed to a serialiser a deep one overflowed its stack, so
 * that every list holding the post (recommendations included) was a 500.
 */
function storedExtras<T extends object>(json: string, none: T): T {
  const value = parseWithinBounds(json, STATUS_BOUNDS);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...none, ...(value as Partial<T>) } : { ...none };
}

/** The Account of a joined row, with every Mastodon 4.5 field (renderAccount fills what was never stored). */
export function toAccount(row: PostWithAccountRow): Account {
  const extras = storedExtras(row.a_extras_json, NO_ACCOUNT_EXTRAS);
  return renderAccount({
    id: row.a_id,
    username: row.a_username,
    acct: row.a_acct,
    display_name: row.a_display_name,
    locked: row.a_locked === 1,
    bot: row.a_bot === 1,
    group: row.a_group === 1,
    created_at: row.a_created_at,
    note: row.a_note,
    url: row.a_url,
    uri: row.a_uri,
    avatar: row.a_avatar,
    avatar_static: extras.avatar_static ?? row.a_avatar,
    header: row.a_header,
    header_static: extras.header_static ?? row.a_header,
    followers_count: row.a_followers_count,
    following_count: row.a_following_count,
    statuses_count: row.a_statuses_count,
    discoverable: extras.discoverable,
    indexable: extras.indexable,
    hide_collections: extras.hide_collections,
    last_status_at: extras.last_status_at,
    memorial: extras.memorial,
    emojis: extras.emojis,
    fields: extras.fields,
    roles: extras.roles,
    feature_approval: extras.feature_approval,
  });
}

/**
 * The Status of a joined row, with every Mastodon 4.5 field (renderStatus: per-viewer flags
 * false, no quote shown; `reblog` filled by the caller).
 */
export function toStatus(row: PostWithAccountRow): Status {
  const tagBaseUrl = origin(row.a_url);
  const extras = storedExtras(row.extras_json, NO_POST_EXTRAS);
  const tags = row.tag_names === '' ? [] : row.tag_names.split(' ');
  return renderStatus({
    id: row.id,
    uri: row.uri,
    url: row.url,
    created_at: row.created_at,
    edited_at: row.edited_at,
    account: toAccount(row),
    content: row.content,
    visibility: row.visibility,
    sensitive: row.sensitive === 1,
    spoiler_text: row.spoiler_text,
    language: row.language,
    in_reply_to_id: row.in_reply_to_id,
    in_reply_to_account_id: row.in_reply_to_account_id,
    tags: tags.map((name) => ({ name, url: `${tagBaseUrl}/tags/${encodeURIComponent(name)}` })),
    reblogs_count: row.reblogs_count,
    favourites_count: row.favourites_count,
    replies_count: row.replies_count,
    media_attachments: extras.media_attachments,
    application: extras.application,
    mentions: extras.mentions,
    emojis: extras.emojis,
    quotes_count: extras.quotes_count,
    quote_approval: extras.quote_approval,
    poll: extras.poll,
    card: extras.card,
  });
}

/** What a profile learns from a post, from the columns a counter update returns. */
export function toEngagedPost(row: Pick<PostRow, 'id' | 'account_id' | 'plain_text' | 'tag_names'>): EngagedPost {
  return { id: row.id, accountId: row.account_id, text: row.plain_text, tags: row.tag_names === '' ? [] : row.tag_names.split(' ') };
}

/** The ranking engine's view of a post (a reblog carries its original's text and tags). */
export function toRankable(row: RankableRow): RankablePost {
  return {
    id: row.id,
    accountId: row.account_id,
    accountUsername: row.username,
    text: row.plain_text,
    tags: row.tag_names === '' ? [] : row.tag_names.split(' '),
    language: row.language,
    createdAtMs: row.created_at_ms,
    favourites: row.favourites_count,
    reblogs: row.reblogs_count,
    replies: row.replies_count,
    bookmarks: row.bookmarks_count,
    reblogOfId: row.reblog_of_id,
    sensitive: row.sensitive === 1 || row.original_sensitive === 1,
  };
}
