/** Wire schemas of interactions (favourite, bookmark, reblog) and post counts. */
import { Type, type Static } from '@sinclair/typebox';
import { CONTEXT_BOUNDS } from './bounded-json.js';
import { LiteralUnion, StringEnum, UserIdSchema } from './common.schema.js';
import { EARLIEST_INTERACTION_MS, INTERACTION_FUTURE_SKEW_MS } from '../interactions/interaction-time.js';

export const ACTION_TYPES = ['favorite', 'bookmark', 'reblog'] as const;
/** What the user did with a post. */
export type InteractionAction = (typeof ACTION_TYPES)[number];

const Id = Type.String({ minLength: 1, maxLength: 64 });

export const InteractionInputSchema = Type.Object(
  {
    user_id: UserIdSchema,
    post_id: Id,
    action_type: StringEnum(ACTION_TYPES, { description: '`favorite`, `bookmark` or `reblog`' }),
    created_at: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'When it happened (ISO 8601 with a time zone), for history logged later; default: when it is received. ' +
          'Every decay of the signal counts from this time. Refused (400 naming `created_at`): more than ' +
          `${INTERACTION_FUTURE_SKEW_MS / 60_000} minutes ahead of the server's clock (a time ahead by less is taken as now), ` +
          `before ${new Date(EARLIEST_INTERACTION_MS).toISOString()}, or more than that skew before the post's own \`created_at\`. ` +
          'An interaction that exists already keeps its time.',
      }),
    ),
    context: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          maxProperties: CONTEXT_BOUNDS.maxKeys,
          description:
            'Where it happened, e.g. `{ "source": "recommendations", "position": 3 }`. At most ' +
            `${CONTEXT_BOUNDS.maxBytes} bytes as JSON, nested ${CONTEXT_BOUNDS.maxDepth} deep (this object is level 1), ` +
            `${CONTEXT_BOUNDS.maxKeys} keys per object, keys of ${CONTEXT_BOUNDS.maxKeyLength} and strings of ` +
            `${CONTEXT_BOUNDS.maxStringLength} characters, ${CONTEXT_BOUNDS.maxArrayLength} items per array; ` +
            'beyond that, 400 naming the offending path (e.g. `context.a.b`).',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type InteractionInput = Static<typeof InteractionInputSchema>;

export const InteractionUndoSchema = Type.Object(
  { user_id: UserIdSchema, post_id: Id, action_type: StringEnum(ACTION_TYPES) },
  { additionalProperties: false },
);
export type InteractionUndo = Static<typeof InteractionUndoSchema>;

export const InteractionSchema = Type.Object(
  {
    id: Type.String(),
    user_id: Type.String(),
    post_id: Type.String(),
    action_type: Type.String(),
    context: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
      description: 'As logged; null when none was given, or when one stored before contexts were bounded exceeds the bounds',
    }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Interaction' },
);
export type Interaction = Static<typeof InteractionSchema>;

/** Most interactions in one `POST /api/v1/interactions/batch` (as many as a batch of posts or events). */
export const MAX_BATCH_INTERACTIONS = 500;

export const InteractionBatchSchema = Type.Object(
  { interactions: Type.Array(InteractionInputSchema, { minItems: 1, maxItems: MAX_BATCH_INTERACTIONS }) },
  { additionalProperties: false },
);
export type InteractionBatch = Static<typeof InteractionBatchSchema>;

export const INTERACTION_RESULT_STATUSES = ['created', 'existing', 'not_stored'] as const;

export const InteractionBatchResultSchema = Type.Object(
  {
    created: Type.Integer({ description: 'Interactions stored by this batch' }),
    existing: Type.Integer({ description: 'Interactions that existed already (per user, post and action): unchanged' }),
    not_stored: Type.Integer({ description: "Acknowledged without storing anything: the user's tracking level is `none`" }),
    results: Type.Array(
      // A union of literals, not StringEnum: the CLI checks the answer with TypeBox, which knows no `Unsafe` enum.
      Type.Object({ status: LiteralUnion(INTERACTION_RESULT_STATUSES), interaction: InteractionSchema }, { title: 'InteractionResult' }),
      { description: 'One per interaction given, in the same order' },
    ),
  },
  { title: 'InteractionBatchResult' },
);
export type InteractionBatchResult = Static<typeof InteractionBatchResultSchema>;

/**
 * Largest page of `GET /api/v1/interactions`: with contexts bounded by CONTEXT_BOUNDS a
 * full page stays under a megabyte.
 */
export const MAX_INTERACTIONS_PAGE = 200;
export const DEFAULT_INTERACTIONS_PAGE = 40;

export const InteractionListQuerySchema = Type.Object({
  user_id: UserIdSchema,
  action_type: Type.Optional(StringEnum(ACTION_TYPES)),
  max_id: Type.Optional(Type.String({ maxLength: 64 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_INTERACTIONS_PAGE, default: DEFAULT_INTERACTIONS_PAGE })),
});

export const PostCountsSchema = Type.Object(
  {
    post_id: Type.String(),
    favourites_count: Type.Integer(),
    reblogs_count: Type.Integer(),
    replies_count: Type.Integer(),
    bookmarks_count: Type.Integer(),
  },
  { title: 'PostCounts' },
);
export type PostCounts = Static<typeof PostCountsSchema>;
