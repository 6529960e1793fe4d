/**
 * Mastodon 4.5's Status and Account entities as the service renders them: the one place that
 * says what a status the service builds itself carries (src/schemas/post.schema.ts defines the
 * wire shape; REST::StatusSerializer and REST::AccountSerializer, as typed by masto.js 7.12,
 * which marks `quotes_count`, `quote_approval`, `roles`... required).
 *
 * Statuses an instance sends pass through the service untouched (unknown fields included);
 * every status rendered from a stored post (recommendations, posts routes, seamless items, the
 * posts a timeline injects, a degraded page) is built by `renderStatus` and `renderAccount`
 * (server/posts/post.mapper.ts hands them the columns and the stored JSON), so that a client
 * decoding it as an instance's finds every field with its type, with neutral values for what
 * the service does not know: no quote shown, nobody's relationship flags, policies `unknown`
 * for the viewer. Nested entities from the stored JSON are made whole, and an entry that
 * cannot be (a mention without an id, an attachment without a type) is left out rather than
 * sent broken. The objects have one fixed shape: rendering is on the path of every page.
 */
import type { Account, ApprovalPolicy, Status } from '../schemas/post.schema.js';

export type MastodonStatus = Status;
export type MastodonAccount = Account;
export type MastodonApprovalPolicy = ApprovalPolicy;

type Json = Readonly<Record<string, unknown>>;

/** The service does not know the author's policy, nor who the viewer is. */
export const UNKNOWN_APPROVAL: MastodonApprovalPolicy = Object.freeze({ automatic: [], manual: [], current_user: 'unknown' });

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const strOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const bool = (value: unknown, otherwise: boolean): boolean => (typeof value === 'boolean' ? value : otherwise);
const count = (value: unknown): number => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0);
const objects = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject) : []);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** An author's approval policy as sent, for nobody in particular (`current_user` is the viewer's: unknown). */
export function approvalPolicy(value: unknown): MastodonApprovalPolicy {
  if (!isObject(value)) return UNKNOWN_APPROVAL;
  return { automatic: strings(value.automatic), manual: strings(value.manual), current_user: 'unknown' };
}

function customEmojis(value: unknown): MastodonAccount['emojis'] {
  return objects(value).flatMap((emoji) => {
    const shortcode = str(emoji.shortcode);
    const url = str(emoji.url);
    if (shortcode === undefined || url === undefined) return [];
    return [{ ...emoji, shortcode, url, static_url: str(emoji.static_url) ?? url, visible_in_picker: bool(emoji.visible_in_picker, true) }];
  });
}

function profileFields(value: unknown): MastodonAccount['fields'] {
  return objects(value).flatMap((field) => {
    const name = str(field.name);
    const fieldValue = str(field.value);
    return name === undefined || fieldValue === undefined
      ? []
      : [{ ...field, name, value: fieldValue, verified_at: strOrNull(field.verified_at) }];
  });
}

function roles(value: unknown): MastodonAccount['roles'] {
  return objects(value).flatMap((role) => {
    const id = typeof role.id === 'number' ? String(role.id) : str(role.id);
    const name = str(role.name);
    return id === undefined || name === undefined ? [] : [{ id, name, color: str(role.color) ?? '' }];
  });
}

function mentions(value: unknown): MastodonStatus['mentions'] {
  return objects(value).flatMap((mention) => {
    const id = str(mention.id);
    const username = str(mention.username);
    if (id === undefined || username === undefined) return [];
    return [{ id, username, url: str(mention.url) ?? '', acct: str(mention.acct) ?? username }];
  });
}

function mediaAttachments(value: unknown): MastodonStatus['media_attachments'] {
  return objects(value).flatMap((media) => {
    const id = str(media.id);
    const type = str(media.type);
    if (id === undefined || type === undefined) return [];
    const url = strOrNull(media.url);
    return [
      {
        ...media,
        id,
        type,
        url,
        preview_url: strOrNull(media.preview_url) ?? url,
        remote_url: strOrNull(media.remote_url),
        description: strOrNull(media.description),
        blurhash: strOrNull(media.blurhash),
      },
    ];
  });
}

function application(value: unknown): MastodonStatus['application'] {
  if (!isObject(value)) return null;
  const name = str(value.name);
  return name === undefined ? null : { ...value, name, website: strOrNull(value.website) };
}

/** What the service stores of an account: its columns, and the JSON an instance sent beside them (any shape). */
export interface StoredAccount {
  readonly id: string;
  readonly username: string;
  readonly acct: string;
  readonly display_name: string;
  readonly locked: boolean;
  readonly bot: boolean;
  readonly group: boolean;
  readonly created_at: string;
  readonly note: string;
  readonly url: string;
  readonly uri: string;
  readonly avatar: string;
  readonly avatar_static: string;
  readonly header: string;
  readonly header_static: string;
  readonly followers_count: number;
  readonly following_count: number;
  readonly statuses_count: number;
  readonly discoverable: unknown;
  readonly indexable: unknown;
  readonly hide_collections: unknown;
  readonly last_status_at: unknown;
  readonly memorial: unknown;
  readonly emojis: unknown;
  readonly fields: unknown;
  readonly roles: unknown;
  readonly feature_approval: unknown;
}

/** An account as the service renders it: every field Mastodon 4.5 sends. */
export function renderAccount(account: StoredAccount): MastodonAccount {
  const discoverable = typeof account.discoverable === 'boolean' ? account.discoverable : null;
  const rendered: MastodonAccount = {
    id: account.id,
    username: account.username,
    acct: account.acct,
    display_name: account.display_name,
    locked: account.locked,
    bot: account.bot,
    discoverable,
    // Absent counts as consenting (the service's consent rule): what it stores it indexes.
    indexable: bool(account.indexable, discoverable !== false),
    group: account.group,
    created_at: account.created_at,
    note: account.note,
    url: account.url,
    uri: account.uri,
    avatar: account.avatar,
    avatar_static: account.avatar_static,
    header: account.header,
    header_static: account.header_static,
    followers_count: account.followers_count,
    following_count: account.following_count,
    statuses_count: account.statuses_count,
    last_status_at: strOrNull(account.last_status_at),
    hide_collections: typeof account.hide_collections === 'boolean' ? account.hide_collections : null,
    noindex: false,
    emojis: customEmojis(account.emojis),
    fields: profileFields(account.fields),
    roles: roles(account.roles),
    feature_approval: approvalPolicy(account.feature_approval),
  };
  // Sent only when it holds, as Mastodon does.
  if (account.memorial === true) rendered.memorial = true;
  return rendered;
}

/** What the service stores of a status: its columns, and the JSON an instance sent beside them (any shape). */
export interface StoredStatus {
  readonly id: string;
  readonly uri: string;
  readonly url: string | null;
  readonly created_at: string;
  readonly edited_at: string | null;
  readonly account: MastodonAccount;
  readonly content: string;
  readonly visibility: string;
  readonly sensitive: boolean;
  readonly spoiler_text: string;
  readonly language: string | null;
  readonly in_reply_to_id: string | null;
  readonly in_reply_to_account_id: string | null;
  readonly tags: MastodonStatus['tags'];
  readonly reblogs_count: number;
  readonly favourites_count: number;
  readonly replies_count: number;
  readonly media_attachments: unknown;
  readonly application: unknown;
  readonly mentions: unknown;
  readonly emojis: unknown;
  readonly quotes_count: unknown;
  readonly quote_approval: unknown;
  readonly poll: unknown;
  readonly card: unknown;
}

/**
 * A status as the service renders it: every field Mastodon 4.5 sends, for nobody in particular
 * (relationship flags false, no filters), no quote shown, `reblog` null (the caller nests an
 * original), nested entities made whole or left out.
 */
export function renderStatus(status: StoredStatus): MastodonStatus {
  return {
    id: status.id,
    uri: status.uri,
    created_at: status.created_at,
    account: status.account,
    content: status.content,
    visibility: status.visibility,
    sensitive: status.sensitive,
    spoiler_text: status.spoiler_text,
    media_attachments: mediaAttachments(status.media_attachments),
    application: application(status.application),
    mentions: mentions(status.mentions),
    tags: status.tags,
    emojis: customEmojis(status.emojis),
    reblogs_count: status.reblogs_count,
    favourites_count: status.favourites_count,
    replies_count: status.replies_count,
    quotes_count: count(status.quotes_count),
    quote: null,
    quote_approval: approvalPolicy(status.quote_approval),
    url: status.url,
    in_reply_to_id: status.in_reply_to_id,
    in_reply_to_account_id: status.in_reply_to_account_id,
    reblog: null,
    poll: isObject(status.poll) ? status.poll : null,
    card: isObject(status.card) ? status.card : null,
    language: status.language,
    text: null,
    edited_at: status.edited_at,
    favourited: false,
    reblogged: false,
    muted: false,
    bookmarked: false,
    filtered: [],
  };
}
