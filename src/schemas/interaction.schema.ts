/** Wire schemas of interactions (favourite, bookmark, reblog) and post counts. */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './common.schema.js';

export const ACTION_TYPES = ['favorite', 'bookmark', 'reblog'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

const Id = Type.String({ minLength: 1, maxLength: 64 });

export const InteractionInputSchema = Type.Object(
  {
    user_id: Id,
    post_id: Id,
    action_type: StringEnum(ACTION_TYPES, { description: '`favorite`, `bookmark` or `reblog`' }),
    context: Type.Optional(
      Type.Object({}, { additionalProperties: true, maxProperties: 20, description: 'Where it happened, e.g. `{ "source": "recommendations", "position": 3 }`' }),
    ),
  },
  { additionalProperties: false },
);
export type InteractionInput = Static<typeof InteractionInputSchema>;

export const InteractionUndoSchema = Type.Object(
  { user_id: Id, post_id: Id, action_type: StringEnum(ACTION_TYPES) },
  { additionalProperties: false },
);
export type InteractionUndo = Static<typeof InteractionUndoSchema>;

export const InteractionSchema = Type.Object(
  {
    id: Type.String(),
    user_id: Type.String(),
    post_id: Type.String(),
    action_type: Type.String(),
    context: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Interaction' },
);
export type Interaction = Static<typeof InteractionSchema>;

export const InteractionListQuerySchema = Type.Object({
  user_id: Id,
  action_type: Type.Optional(StringEnum(ACTION_TYPES)),
  max_id: Type.Optional(Type.String({ maxLength: 64 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 40 })),
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
