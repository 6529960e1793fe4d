/** Wire schemas of interactions (favourite, bookmark, reblog) and post counts. */
import { Type, type Static } from '@sinclair/typebox';
import { CONTEXT_BOUNDS } from './bounded-json.js';
import { StringEnum, UserIdSchema } from './common.schema.js';

export const ACTION_TYPES = ['favorite', 'bookmark', 'reblog'] as const;
/** What the user did with a post. */
export type InteractionAction = (typeof ACTION_TYPES)[number];

const Id = Type.String({ minLength: 1, maxLength: 64 });

export const InteractionInputSchema = Type.Object(
  {
    user_id: UserIdSchema,
    post_id: Id,
    action_type: StringEnum(ACTION_TYPES, { description: '`favorite`, `bookmark` or `reblog`' }),
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
