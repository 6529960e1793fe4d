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
