/** The FASP wire shapes this provider serves (general/v0.1/provider_info.md, discovery/trends/v0.1). */
import { Type } from '@sinclair/typebox';
import { DEFAULT_TREND_COUNT, DEFAULT_WITHIN_LAST_HOURS, MAX_TREND_COUNT, MAX_WITHIN_LAST_HOURS } from '../../src/fasp/index.js';

export const ProviderInfoSchema = Type.Object({
  name: Type.String(),
  privacyPolicy: Type.Array(Type.Object({ url: Type.String(), language: Type.String() })),
  capabilities: Type.Array(Type.Object({ id: Type.String(), version: Type.String() })),
  signInUrl: Type.Optional(Type.String()),
  contactEmail: Type.Optional(Type.String()),
  fediverseAccount: Type.Optional(Type.String()),
});

export const ActivationParamsSchema = Type.Object({ id: Type.String({ maxLength: 100 }), version: Type.String({ maxLength: 20 }) });

export const TrendsQuerySchema = Type.Object(
  {
    withinLastHours: Type.Integer({ minimum: 1, maximum: MAX_WITHIN_LAST_HOURS, default: DEFAULT_WITHIN_LAST_HOURS }),
    maxCount: Type.Integer({ minimum: 1, maximum: MAX_TREND_COUNT, default: DEFAULT_TREND_COUNT }),
    language: Type.Optional(Type.String({ minLength: 1, maxLength: 35, pattern: '^(\\*|[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*)$' })),
  },
  { additionalProperties: false },
);

export const TrendingContentSchema = Type.Object({
  content: Type.Array(Type.Object({ uri: Type.String(), rank: Type.Integer({ minimum: 1, maximum: 100 }) })),
});

export const TrendingHashtagsSchema = Type.Object({
  hashtags: Type.Array(
    Type.Object({ name: Type.String(), rank: Type.Integer({ minimum: 1, maximum: 100 }), examples: Type.Array(Type.String()) }),
  ),
});

export const TrendingLinksSchema = Type.Object({
  links: Type.Array(
    Type.Object({ url: Type.String(), rank: Type.Integer({ minimum: 1, maximum: 100 }), examples: Type.Array(Type.String()) }),
  ),
});

const LanguageRange = Type.String({ minLength: 1, maxLength: 35, pattern: '^(\\*|[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*)$' });

/** `accountUri` is optional here so that its absence is the specification's 422, not a schema 400. */
export const FollowRecommendationQuerySchema = Type.Object(
  {
    accountUri: Type.Optional(Type.String({ maxLength: 2048 })),
    language: Type.Optional(LanguageRange),
  },
  { additionalProperties: false },
);

/** `term` is optional here so that its absence is the specification's 422; `offset` pages (the `Link: rel="next"` carries it). */
export const AccountSearchQuerySchema = Type.Object(
  {
    term: Type.Optional(Type.String({ maxLength: 500 })),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    offset: Type.Integer({ minimum: 0, maximum: 1000, default: 0 }),
    language: Type.Optional(LanguageRange),
  },
  { additionalProperties: false },
);

/** A JSON array of actor URIs. */
export const ActorUrisSchema = Type.Array(Type.String());

const SourceId = Type.Object({ id: Type.String({ maxLength: 100 }) });

/**
 * A data_sharing announcement. Unknown keys are allowed: a server on a later minor version of
 * the specification may add some, and refusing its announcements would lose deletions.
 */
export const AnnouncementSchema = Type.Object({
  source: Type.Object({ subscription: Type.Optional(SourceId), backfillRequest: Type.Optional(SourceId) }),
  category: Type.Union([Type.Literal('content'), Type.Literal('account')]),
  eventType: Type.Optional(Type.Union([Type.Literal('new'), Type.Literal('update'), Type.Literal('delete'), Type.Literal('trending')])),
  objectUris: Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { minItems: 1, maxItems: 1000 }),
  moreObjectsAvailable: Type.Optional(Type.Boolean()),
});
