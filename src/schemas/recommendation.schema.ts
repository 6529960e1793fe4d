/**
 * Wire schemas of recommendations: the spec's Recommended post (a Mastodon Status plus
 * ranking fields), the seamless items, feedback and preferences.
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum, UserIdSchema } from './common.schema.js';
import { RECOMMENDATION_RATIO_BOUNDS } from '../settings/settings.schema.js';
import { StatusSchema, statusFields, ReblogSchema } from './post.schema.js';

/**
 * The reason codes of `recommendation_metadata.reason_code`: the spec's four and
 * COLLABORATIVE (posts liked by people who liked what the user liked; docs/ranking.md).
 * The wire type stays a string: clients treat a code they do not know as a generic reason.
 */
export const REASON_CODES = ['AUTHOR_INTERACTION', 'HIGH_ENGAGEMENT', 'SEMANTIC_MATCH', 'TRENDING_TAG', 'COLLABORATIVE'] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

/** Most ids a caller may exclude from one list (decisions.md). */
export const MAX_EXCLUDE_IDS = 200;
export const MAX_RECOMMENDATIONS = 40;
export const DEFAULT_RECOMMENDATIONS = 20;

const UserId = UserIdSchema;
const Limit = Type.Integer({ minimum: 1, maximum: MAX_RECOMMENDATIONS, default: DEFAULT_RECOMMENDATIONS, description: '1..40' });

export const RecommendationMetadataSchema = Type.Object({
  reason_code: Type.String({ description: REASON_CODES.join(', ') }),
  reason_string: Type.String(),
  score: Type.Number({ minimum: 0, maximum: 1 }),
});

/** A recommended post: every Status field, the spec's ranking fields and the timeline markers. */
export const RecommendedPostSchema = Type.Object(
  {
    ...statusFields,
    reblog: Type.Union([ReblogSchema, Type.Null()]),
    ranking_score: Type.Number({ minimum: 0, maximum: 1 }),
    recommendation_reason: Type.String(),
    is_recommendation: Type.Boolean(),
    recommendation_metadata: RecommendationMetadataSchema,
  },
  { title: 'RecommendedPost' },
);
export type RecommendedPost = Static<typeof RecommendedPostSchema>;

export const RecommendationQuerySchema = Type.Object({
  user_id: UserId,
  limit: Type.Optional(Limit),
  exclude_ids: Type.Optional(Type.String({ description: `Comma-separated post ids, at most ${MAX_EXCLUDE_IDS}` })),
  max_id: Type.Optional(Type.String({ maxLength: 64 })),
  since_id: Type.Optional(Type.String({ maxLength: 64 })),
});
export type RecommendationQuery = Static<typeof RecommendationQuerySchema>;

export const RecommendationBodySchema = Type.Object(
  {
    user_id: UserId,
    limit: Type.Optional(Limit),
    exclude_ids: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: MAX_EXCLUDE_IDS })),
    max_id: Type.Optional(Type.String({ maxLength: 64 })),
    since_id: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

export const TIMELINE_TYPES = ['home', 'local', 'public'] as const;

export const SeamlessBodySchema = Type.Object(
  {
    timeline_type: StringEnum(TIMELINE_TYPES),
    existing_statuses: Type.Array(
      Type.Object(
        { id: Type.String({ minLength: 1, maxLength: 64 }), content: Type.Optional(Type.String()), author: Type.Optional(Type.String()) },
        { additionalProperties: true },
      ),
      { maxItems: 400 },
    ),
    max_recommendations: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RECOMMENDATIONS, default: 10 })),
    user_id: Type.Optional(UserId),
  },
  { additionalProperties: false },
);
export type SeamlessBody = Static<typeof SeamlessBodySchema>;

export const SeamlessItemSchema = Type.Object(
  {
    id: Type.String(),
    content: StatusSchema,
    score: Type.Number({ minimum: 0, maximum: 1 }),
    reason: Type.String(),
    insertion_point: Type.Integer({ minimum: 0, description: 'Insert before the existing status at this index (the length appends)' }),
    recommendation_metadata: RecommendationMetadataSchema,
  },
  { title: 'SeamlessRecommendation' },
);
export type SeamlessItem = Static<typeof SeamlessItemSchema>;

export const FEEDBACK_VALUES = ['more', 'less'] as const;

export const FeedbackBodySchema = Type.Object(
  { user_id: UserId, post_id: Type.String({ minLength: 1, maxLength: 64 }), feedback: StringEnum(FEEDBACK_VALUES) },
  { additionalProperties: false },
);
export type FeedbackBody = Static<typeof FeedbackBodySchema>;

export const FeedbackSchema = Type.Object(
  {
    id: Type.String(),
    user_id: Type.String(),
    post_id: Type.String(),
    feedback: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Feedback' },
);
export type Feedback = Static<typeof FeedbackSchema>;

const StringList = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 500 });

const explicitFields = {
  favoured_authors: StringList,
  muted_authors: StringList,
  favoured_tags: StringList,
  muted_tags: StringList,
  languages: Type.Array(Type.String({ minLength: 2, maxLength: 16 }), { maxItems: 50 }),
  include_reblogs: Type.Boolean(),
  allow_sensitive: Type.Boolean({
    description: 'Sensitive posts (content warnings) may be recommended and woven into timelines; false by default',
  }),
  recommendation_ratio: Type.Union([Type.Number({ ...RECOMMENDATION_RATIO_BOUNDS }), Type.Null()], {
    description: 'Share of a timeline given to recommendations; null means the default 0.3',
  }),
};

export const PreferencesSchema = Type.Object(
  {
    user_id: Type.String(),
    ...explicitFields,
    learned: Type.Object({
      authors: Type.Array(Type.Object({ account_id: Type.String(), affinity: Type.Number() })),
      tags: Type.Array(Type.Object({ tag: Type.String(), affinity: Type.Number() })),
    }),
    updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'Preferences' },
);
export type Preferences = Static<typeof PreferencesSchema>;

export const PreferencesUpdateSchema = Type.Object(
  {
    user_id: UserId,
    favoured_authors: Type.Optional(explicitFields.favoured_authors),
    muted_authors: Type.Optional(explicitFields.muted_authors),
    favoured_tags: Type.Optional(explicitFields.favoured_tags),
    muted_tags: Type.Optional(explicitFields.muted_tags),
    languages: Type.Optional(explicitFields.languages),
    include_reblogs: Type.Optional(explicitFields.include_reblogs),
    allow_sensitive: Type.Optional(explicitFields.allow_sensitive),
    recommendation_ratio: Type.Optional(explicitFields.recommendation_ratio),
  },
  { additionalProperties: false },
);
export type PreferencesUpdate = Static<typeof PreferencesUpdateSchema>;
