/**
 * Mastodon 4.5's Status and Account entities as its REST API sends them (snake_case):
 * the fields of REST::StatusSerializer and REST::AccountSerializer, as typed by masto.js
 * (7.12, which marks `quotes_count`, `quote_approval`, `roles`... required).
 *
 * Statuses an instance sends pass through the service untouched (unknown fields included);
 * these types are for the statuses the service renders itself from stored posts
 * (recommendations injected into timelines), which `completeStatus` fills out so that a
 * client decoding them as an instance's finds every field, with neutral values for what
 * the service does not know: no quotes, nobody's relationship flags, no roles.
 */

export type MastodonVisibility = 'public' | 'unlisted' | 'private' | 'direct';

/** Who may quote (or feature) a status or account automatically, or after approval. */
export type ApprovalAudience = 'public' | 'followers' | 'following' | 'unsupported_policy';
export type CurrentUserApproval = 'automatic' | 'manual' | 'denied' | 'unknown';

/** QuoteApproval (4.5) and the account's FeatureApproval share this shape. */
export interface MastodonApprovalPolicy {
  readonly automatic: readonly ApprovalAudience[];
  readonly manual: readonly ApprovalAudience[];
  readonly current_user: CurrentUserApproval;
}

export interface MastodonAccountField {
  readonly name: string;
  readonly value: string;
  readonly verified_at: string | null;
}

/** A role an account displays (Role, as nested in Account: id, name, color). */
export interface MastodonAccountRole {
  readonly id: string;
  readonly name: string;
  readonly color: string;
}

export interface MastodonAccount {
  readonly id: string;
  readonly username: string;
  readonly acct: string;
  readonly url: string;
  readonly uri: string;
  readonly display_name: string;
  readonly note: string;
  readonly avatar: string;
  readonly avatar_static: string;
  readonly header: string;
  readonly header_static: string;
  readonly locked: boolean;
  readonly bot: boolean;
  readonly group: boolean;
  readonly discoverable: boolean | null;
  readonly indexable: boolean;
  readonly hide_collections: boolean | null;
  /** Sent for the instance's own accounts only. */
  readonly noindex?: boolean | null;
  readonly created_at: string;
  /** A date (YYYY-MM-DD), or null. */
  readonly last_status_at: string | null;
  readonly statuses_count: number;
  readonly followers_count: number;
  readonly following_count: number;
  readonly fields: readonly MastodonAccountField[];
  readonly emojis: readonly Readonly<Record<string, unknown>>[];
  readonly roles: readonly MastodonAccountRole[];
  /** Sent only when they hold. */
  readonly moved?: MastodonAccount | null;
  readonly suspended?: boolean;
  readonly limited?: boolean;
  readonly memorial?: boolean;
  /** Who may feature the account (newer servers). */
  readonly feature_approval?: MastodonApprovalPolicy;
}

export interface MastodonMention {
  readonly id: string;
  readonly username: string;
  readonly url: string;
  readonly acct: string;
}

export interface MastodonTag {
  readonly name: string;
  readonly url: string;
}

export interface MastodonApplication {
  readonly name: string;
  readonly website: string | null;
}

/** A quote of another status (Quote, or ShallowQuote with `quoted_status_id` when nested). */
export interface MastodonQuote {
  readonly state: string;
  readonly quoted_status?: MastodonStatus | null;
  readonly quoted_status_id?: string | null;
}

export interface MastodonStatus {
  readonly id: string;
  readonly uri: string;
  readonly url: string | null;
  readonly created_at: string;
  readonly edited_at: string | null;
  readonly account: MastodonAccount;
  readonly content: string;
  readonly visibility: MastodonVisibility;
  readonly sensitive: boolean;
  readonly spoiler_text: string;
  readonly language: string | null;
  readonly in_reply_to_id: string | null;
  readonly in_reply_to_account_id: string | null;
  readonly media_attachments: readonly Readonly<Record<string, unknown>>[];
  readonly application: MastodonApplication | null;
  readonly mentions: readonly MastodonMention[];
  readonly tags: readonly MastodonTag[];
  readonly emojis: readonly Readonly<Record<string, unknown>>[];
  readonly reblogs_count: number;
  readonly favourites_count: number;
  readonly replies_count: number;
  readonly quotes_count: number;
  readonly quote: MastodonQuote | null;
  readonly quote_approval: MastodonApprovalPolicy;
  readonly reblog: MastodonStatus | null;
  readonly poll: Readonly<Record<string, unknown>> | null;
  readonly card: Readonly<Record<string, unknown>> | null;
  /** The viewer's relationship to the status: false when rendered for nobody in particular. */
  readonly favourited: boolean;
  readonly reblogged: boolean;
  readonly muted: boolean;
  readonly bookmarked: boolean;
  /** Only on the viewer's own statuses. */
  readonly pinned?: boolean;
  readonly filtered: readonly Readonly<Record<string, unknown>>[];
  /** Only when the source was asked for. */
  readonly text?: string | null;
}

type Json = Readonly<Record<string, unknown>>;

/** Nobody may be assumed to quote or feature: the service does not know the author's policy. */
const UNKNOWN_APPROVAL: MastodonApprovalPolicy = Object.freeze({ automatic: [], manual: [], current_user: 'unknown' });

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `defaults` under `value`: a field the value has (not undefined) wins. The value is trusted to hold the rest of T. */
function filled<T extends object>(defaults: Partial<T>, value: Json): T & Json {
  const out: Record<string, unknown> = { ...defaults };
  for (const [key, field] of Object.entries(value)) if (field !== undefined) out[key] = field;
  return out as T & Json;
}

/** An account rendered by the service with every field Mastodon 4.5 sends (its own fields kept). */
export function completeAccount(account: Json): MastodonAccount & Json {
  const url = typeof account.url === 'string' ? account.url : '';
  const avatar = typeof account.avatar === 'string' ? account.avatar : '';
  const header = typeof account.header === 'string' ? account.header : '';
  const username = typeof account.username === 'string' ? account.username : '';
  const defaults: Omit<MastodonAccount, 'id'> = {
    username,
    acct: username,
    url,
    uri: url,
    display_name: username,
    note: '',
    avatar,
    avatar_static: avatar,
    header,
    header_static: header,
    locked: false,
    bot: false,
    group: false,
    discoverable: null,
    // Absent counts as consenting (the service's consent rule): what it stores it indexes.
    indexable: account.discoverable !== false,
    hide_collections: false,
    noindex: false,
    created_at: new Date(0).toISOString(),
    last_status_at: null,
    statuses_count: 0,
    followers_count: 0,
    following_count: 0,
    fields: [],
    emojis: [],
    roles: [],
    feature_approval: UNKNOWN_APPROVAL,
  };
  return filled<MastodonAccount>(defaults, account);
}

/**
 * A status rendered by the service with every field Mastodon 4.5 sends, its account and
 * reblogged original completed too; its own fields (recommendation fields included) kept.
 */
export function completeStatus(status: Json): MastodonStatus & Json {
  const defaults: Omit<MastodonStatus, 'id' | 'uri' | 'created_at' | 'account' | 'content'> = {
    url: null,
    edited_at: null,
    visibility: 'public',
    sensitive: false,
    spoiler_text: '',
    language: null,
    in_reply_to_id: null,
    in_reply_to_account_id: null,
    media_attachments: [],
    application: null,
    mentions: [],
    tags: [],
    emojis: [],
    reblogs_count: 0,
    favourites_count: 0,
    replies_count: 0,
    quotes_count: 0,
    quote: null,
    quote_approval: UNKNOWN_APPROVAL,
    reblog: null,
    poll: null,
    card: null,
    favourited: false,
    reblogged: false,
    muted: false,
    bookmarked: false,
    filtered: [],
  };
  return {
    ...filled<MastodonStatus>(defaults, status),
    account: completeAccount(isObject(status.account) ? status.account : {}),
    reblog: isObject(status.reblog) ? completeStatus(status.reblog) : null,
  };
}
