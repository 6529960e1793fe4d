/**
 * Wire schemas of posts: Mastodon 4.5's Account and Status entities as strict clients
 * (masto.js, the official apps) expect them (the one definition of the entities the service
 * renders: src/mastodon/entities.ts fills them), and the ingestion input.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { MAX_STATUS_CONTENT_LENGTH, STATUS_BOUNDS } from './bounded-json.js';
import { StringEnum } from './common.schema.js';

const FreeObject = Type.Object({}, { additionalProperties: true });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const VISIBILITIES = ['public', 'unlisted', 'private', 'direct'] as const;

/** Who may quote a status, or feature an account: Mastodon 4.5's QuoteApproval (and FeatureApproval). */
export const ApprovalPolicySchema = Type.Object(
  {
    automatic: Type.Array(Type.String(), { description: 'public, followers, following, unsupported_policy' }),
    manual: Type.Array(Type.String()),
    current_user: Type.String({ description: 'automatic, manual, denied, unknown (the viewer: unknown for nobody in particular)' }),
  },
  { title: 'QuoteApproval' },
);
export type ApprovalPolicy = Static<typeof ApprovalPolicySchema>;

/** A role an account displays (Role as nested in Account). */
export const AccountRoleSchema = Type.Object({ id: Type.String(), name: Type.String(), color: Type.String() });

/** A profile field (Mastodon's Field: `verified_at` null when unverified). */
export const AccountFieldSchema = Type.Object(
  { name: Type.String(), value: Type.String({ description: 'HTML' }), verified_at: Nullable(Type.String()) },
  { additionalProperties: true },
);

/** A custom emoji (CustomEmoji). */
export const CustomEmojiSchema = Type.Object(
  { shortcode: Type.String(), url: Type.String(), static_url: Type.String(), visible_in_picker: Type.Boolean() },
  { additionalProperties: true },
);

/**
 * Mastodon 4.5's Account entity (REST::AccountSerializer): every field a client reads, those
 * masto.js 7.12 marks required included. Fields Mastodon sends only when they hold (`memorial`,
 * `noindex` for its own accounts) are optional.
 */
export const AccountSchema = Type.Object(
  {
    id: Type.String(),
    username: Type.String(),
    acct: Type.String(),
    display_name: Type.String(),
    locked: Type.Boolean(),
    bot: Type.Boolean(),
    discoverable: Nullable(Type.Boolean()),
    indexable: Type.Boolean(),
    group: Type.Boolean(),
    created_at: Type.String({ format: 'date-time' }),
    note: Type.String(),
    url: Type.String(),
    uri: Type.String(),
    avatar: Type.String(),
    avatar_static: Type.String(),
    header: Type.String(),
    header_static: Type.String(),
    followers_count: Type.Integer(),
    following_count: Type.Integer(),
    statuses_count: Type.Integer(),
    last_status_at: Nullable(Type.String({ description: 'A date (YYYY-MM-DD)' })),
    hide_collections: Nullable(Type.Boolean()),
    noindex: Type.Optional(Nullable(Type.Boolean())),
    memorial: Type.Optional(Type.Boolean()),
    emojis: Type.Array(CustomEmojiSchema),
    fields: Type.Array(AccountFieldSchema),
    roles: Type.Array(AccountRoleSchema),
    feature_approval: ApprovalPolicySchema,
  },
  { title: 'Account' },
);
export type Account = Static<typeof AccountSchema>;

export const TagSchema = Type.Object({ name: Type.String(), url: Type.String() });

/** A mentioned account (Status::Mention). */
export const MentionSchema = Type.Object({ id: Type.String(), username: Type.String(), url: Type.String(), acct: Type.String() });

/** A media attachment: the fields every client reads; the rest (`meta`, ...) as the instance sent them. */
export const MediaAttachmentSchema = Type.Object(
  {
    id: Type.String(),
    type: Type.String({ description: 'image, gifv, video, audio, unknown' }),
    url: Nullable(Type.String()),
    preview_url: Nullable(Type.String()),
    remote_url: Nullable(Type.String()),
    description: Nullable(Type.String()),
    blurhash: Nullable(Type.String()),
  },
  { additionalProperties: true },
);

/** The application a status was posted with (shown only when its author allows). */
export const ApplicationSchema = Type.Object({ name: Type.String(), website: Nullable(Type.String()) }, { additionalProperties: true });

/**
 * A quote of another status (Quote; ShallowQuote names only `quoted_status_id`). The service
 * renders none (`quote: null`): the quoted status' author did not consent to being shown by it.
 */
export const QuoteSchema = Type.Object(
  {
    state: Type.String(),
    quoted_status: Type.Optional(Nullable(FreeObject)),
    quoted_status_id: Type.Optional(Nullable(Type.String())),
  },
  { additionalProperties: true },
);

/** Every Status field except `reblog` (a reblog's original cannot itself be a reblog). */
export const statusFields = {
  id: Type.String(),
  uri: Type.String(),
  created_at: Type.String({ format: 'date-time', description: 'ISO 8601 with milliseconds and Z' }),
  account: AccountSchema,
  content: Type.String({ description: 'HTML' }),
  visibility: Type.String(),
  sensitive: Type.Boolean(),
  spoiler_text: Type.String(),
  media_attachments: Type.Array(MediaAttachmentSchema),
  application: Nullable(ApplicationSchema),
  mentions: Type.Array(MentionSchema),
  tags: Type.Array(TagSchema),
  emojis: Type.Array(CustomEmojiSchema),
  reblogs_count: Type.Integer(),
  favourites_count: Type.Integer(),
  replies_count: Type.Integer(),
  quotes_count: Type.Integer(),
  quote: Nullable(QuoteSchema),
  quote_approval: ApprovalPolicySchema,
  url: Nullable(Type.String()),
  in_reply_to_id: Nullable(Type.String()),
  in_reply_to_account_id: Nullable(Type.String()),
  poll: Nullable(FreeObject),
  card: Nullable(FreeObject),
  language: Nullable(Type.String()),
  text: Nullable(Type.String()),
  edited_at: Nullable(Type.String({ format: 'date-time' })),
  favourited: Type.Boolean(),
  reblogged: Type.Boolean(),
  muted: Type.Boolean(),
  bookmarked: Type.Boolean(),
  filtered: Type.Array(FreeObject),
};

export const ReblogSchema = Type.Object(statusFields, { title: 'RebloggedStatus' });

/** Mastodon's Status entity. */
export const StatusSchema = Type.Object({ ...statusFields, reblog: Nullable(ReblogSchema) }, { title: 'Status' });
export type Status = Static<typeof StatusSchema>;

const IdString = Type.String({ minLength: 1, maxLength: 64, pattern: '^[0-9A-Za-z_-]+$' });

/** An Account as sent by an instance (known fields checked, the rest kept as given). */
export const AccountInputSchema = Type.Object(
  {
    id: IdString,
    username: Type.String({ minLength: 1, maxLength: 200 }),
    acct: Type.Optional(Type.String()),
    display_name: Type.Optional(Type.String()),
    note: Type.Optional(Type.String()),
    url: Type.Optional(Type.String()),
    uri: Type.Optional(Type.String()),
    avatar: Type.Optional(Type.String()),
    header: Type.Optional(Type.String()),
    locked: Type.Optional(Type.Boolean()),
    bot: Type.Optional(Type.Boolean()),
    group: Type.Optional(Type.Boolean()),
    followers_count: Type.Optional(Type.Integer({ minimum: 0 })),
    following_count: Type.Optional(Type.Integer({ minimum: 0 })),
    statuses_count: Type.Optional(Type.Integer({ minimum: 0 })),
    created_at: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: true },
);
export type AccountInput = Static<typeof AccountInputSchema>;

const statusInputFields = {
  id: Type.Optional(IdString),
  uri: Type.Optional(Type.String()),
  url: Type.Optional(Nullable(Type.String())),
  created_at: Type.Optional(Type.String({ format: 'date-time' })),
  account: AccountInputSchema,
  content: Type.String({ maxLength: MAX_STATUS_CONTENT_LENGTH }),
  spoiler_text: Type.Optional(Type.String()),
  visibility: Type.Optional(StringEnum(VISIBILITIES)),
  sensitive: Type.Optional(Type.Boolean()),
  language: Type.Optional(Nullable(Type.String({ maxLength: 16 }))),
  in_reply_to_id: Type.Optional(Nullable(Type.String())),
  in_reply_to_account_id: Type.Optional(Nullable(Type.String())),
  tags: Type.Optional(
    Type.Array(Type.Union([Type.String(), Type.Object({ name: Type.String() }, { additionalProperties: true })]), { maxItems: 100 }),
  ),
  favourites_count: Type.Optional(Type.Integer({ minimum: 0 })),
  reblogs_count: Type.Optional(Type.Integer({ minimum: 0 })),
  replies_count: Type.Optional(Type.Integer({ minimum: 0 })),
  edited_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
};

/**
 * A status to ingest: Mastodon's Status as an instance returns it. Unknown fields are
 * accepted (it is a foreign document) and the whole object is kept as original JSON, within
 * STATUS_BOUNDS (checked by the posts service, which also ingests statuses from instances).
 */
export const StatusInputSchema = Type.Object(
  {
    ...statusInputFields,
    reblog: Type.Optional(Nullable(Type.Object(statusInputFields, { additionalProperties: true }))),
  },
  {
    additionalProperties: true,
    maxProperties: STATUS_BOUNDS.maxKeys,
    title: 'StatusInput',
    description:
      `Kept as sent, within bounds: at most ${STATUS_BOUNDS.maxBytes} bytes as JSON (reblogged original included), ` +
      `nested ${STATUS_BOUNDS.maxDepth} deep (the status is level 1), ${STATUS_BOUNDS.maxKeys} keys per object, keys of ` +
      `${STATUS_BOUNDS.maxKeyLength} and strings of ${STATUS_BOUNDS.maxStringLength} characters, ` +
      `${STATUS_BOUNDS.maxArrayLength} items per array; beyond that, 400 naming the offending path.`,
  },
);
export type StatusInput = Static<typeof StatusInputSchema>;

export const MAX_BATCH_STATUSES = 500;

export const StatusBatchSchema = Type.Object(
  { statuses: Type.Array(StatusInputSchema, { minItems: 1, maxItems: MAX_BATCH_STATUSES }) },
  { additionalProperties: false },
);

/** Mastodon paging: `max_id` / `since_id` / `min_id` / `limit`. */
export const PagingQueryFields = {
  max_id: Type.Optional(Type.String({ maxLength: 64 })),
  since_id: Type.Optional(Type.String({ maxLength: 64 })),
  min_id: Type.Optional(Type.String({ maxLength: 64 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 40, default: 20 })),
};

export const PostListQuerySchema = Type.Object({
  ...PagingQueryFields,
  account_id: Type.Optional(Type.String({ maxLength: 64 })),
  tag: Type.Optional(Type.String({ maxLength: 100 })),
});
export type PostListQuery = Static<typeof PostListQuerySchema>;

export const TrendingQuerySchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 40, default: 20 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, default: 0 })),
});

export const PostIdParamsSchema = Type.Object({ id: Type.String({ maxLength: 64 }) });
