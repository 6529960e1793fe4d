/**
 * Wire schemas of posts: Mastodon's Account and Status entities as strict clients
 * (masto.js, the official apps) expect them, and the ingestion input.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { MAX_STATUS_CONTENT_LENGTH, STATUS_BOUNDS } from './bounded-json.js';
import { StringEnum } from './common.schema.js';

const FreeObject = Type.Object({}, { additionalProperties: true });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const VISIBILITIES = ['public', 'unlisted', 'private', 'direct'] as const;

/** Mastodon's Account entity. */
export const AccountSchema = Type.Object(
  {
    id: Type.String(),
    username: Type.String(),
    acct: Type.String(),
    display_name: Type.String(),
    locked: Type.Boolean(),
    bot: Type.Boolean(),
    discoverable: Nullable(Type.Boolean()),
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
    last_status_at: Nullable(Type.String()),
    emojis: Type.Array(FreeObject),
    fields: Type.Array(FreeObject),
  },
  { title: 'Account' },
);
export type Account = Static<typeof AccountSchema>;

export const TagSchema = Type.Object({ name: Type.String(), url: Type.String() });

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
  media_attachments: Type.Array(FreeObject),
  application: Nullable(FreeObject),
  mentions: Type.Array(FreeObject),
  tags: Type.Array(TagSchema),
  emojis: Type.Array(FreeObject),
  reblogs_count: Type.Integer(),
  favourites_count: Type.Integer(),
  replies_count: Type.Integer(),
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
