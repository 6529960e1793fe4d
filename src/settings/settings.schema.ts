/**
 * The wire shapes of `/api/v1/settings` (TypeBox), and the defaults a GET fills in.
 *
 * User settings: `recommendation_ratio`, `languages`, `include_reblogs` and `allow_sensitive`
 * are the same values as the recommendation preferences (`/api/v1/recommendations/preferences`): one
 * stored row, two views. `experiments_opt_out` and `reason_language` are settings only.
 * Integration settings (admin): the deployment's default instance, the instances it
 * accepts, the browser origins CORS allows and the performance-gate defaults.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DEFAULT_GATE_THRESHOLDS } from '../experiments/experiment-defaults.js';
import { DEFAULT_INJECTION_RATIO } from '../ranking/seamless.js';
import { REASON_LANGUAGES } from '../ranking/reason-text.js';
import { LiteralUnion, UserIdSchema } from '../schemas/common.schema.js';

/** Bounds of `recommendation_ratio`: the share of a timeline page given to recommendations. */
export const RECOMMENDATION_RATIO_BOUNDS = { minimum: 0, maximum: 1 } as const;

/** The ratio when the user set none (0.4 instead for users whose engagement rate is above 0.7). */
export const DEFAULT_RECOMMENDATION_RATIO = DEFAULT_INJECTION_RATIO;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

/** A language tag such as `en`, `de` or `pt-BR` (BCP 47 language with optional subtags). */
const LanguageTag = Type.String({ minLength: 2, maxLength: 16, pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$' });

const ReasonLanguageSchema = LiteralUnion(REASON_LANGUAGES);

const userFields = {
  recommendation_ratio: Type.Number({
    ...RECOMMENDATION_RATIO_BOUNDS,
    description: 'Share of a blended timeline page given to recommendations (0 to 1)',
  }),
  languages: Type.Array(LanguageTag, { maxItems: 50, description: 'Languages of recommended posts; empty: any language' }),
  include_reblogs: Type.Boolean({ description: 'Whether reblogs may be recommended' }),
  allow_sensitive: Type.Boolean({
    description: 'Whether sensitive posts (content warnings) may be recommended and woven into timelines; false by default',
  }),
  experiments_opt_out: Type.Boolean({ description: 'Never enrolled in experiments (always the default ranking)' }),
  reason_language: Type.Union([ReasonLanguageSchema, Type.Null()], {
    description: 'Language of recommendation reasons; null: from Accept-Language, else English',
  }),
};

/** Names of the user settings, in response order. */
export const USER_SETTING_NAMES = Object.keys(userFields) as Array<keyof typeof userFields>;
export type UserSettingName = (typeof USER_SETTING_NAMES)[number];

export const UserSettingsSchema = Type.Object(
  {
    user_id: Type.String(),
    ...userFields,
    effective_reason_language: Type.Union([ReasonLanguageSchema], {
      description: 'The language reasons are written in for this request (the setting, else Accept-Language, else en)',
    }),
    defaults: Type.Array(LiteralUnion(USER_SETTING_NAMES), { description: 'Settings the user never set: their default is shown' }),
    updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'UserSettings' },
);
export type UserSettings = Static<typeof UserSettingsSchema>;

export const UserSettingsPatchSchema = Type.Object(
  {
    user_id: Type.Optional(UserIdSchema),
    recommendation_ratio: Type.Optional(Nullable(userFields.recommendation_ratio, 'null: back to the default')),
    languages: Type.Optional(userFields.languages),
    include_reblogs: Type.Optional(userFields.include_reblogs),
    allow_sensitive: Type.Optional(userFields.allow_sensitive),
    experiments_opt_out: Type.Optional(userFields.experiments_opt_out),
    reason_language: Type.Optional(userFields.reason_language),
  },
  { additionalProperties: false, title: 'UserSettingsPatch' },
);
export type UserSettingsPatch = Static<typeof UserSettingsPatchSchema>;

/** Default and limits of the integration settings. */
export const MAX_ALLOWED_INSTANCES = 1000;
export const MAX_CORS_ORIGINS = 100;

const Rate = Type.Number({ minimum: 0, maximum: 1 });

export const GateThresholdDefaultsSchema = Type.Object(
  {
    max_response_time_p95: Type.Number({ minimum: 1, description: 'Milliseconds (at least 1)' }),
    min_click_through_rate: Rate,
    max_error_rate: Rate,
    min_user_satisfaction: Rate,
  },
  { additionalProperties: false, title: 'GateThresholdDefaults' },
);
export type GateThresholdDefaults = Static<typeof GateThresholdDefaultsSchema>;

/** The spec's gates: the defaults until an admin changes them. */
export const DEFAULT_GATE_THRESHOLD_DEFAULTS: GateThresholdDefaults = { ...DEFAULT_GATE_THRESHOLDS };

const Host = Type.String({ minLength: 1, maxLength: 260, description: 'Instance host name, e.g. mastodon.social' });
const Origin = Type.String({ minLength: 1, maxLength: 260, description: 'Browser origin, e.g. https://elk.zone' });

const integrationFields = {
  default_instance: Type.Union([Host, Type.Null()], {
    description: 'Instance of Mastodon tokens sent without X-Social-Instance; null: none',
  }),
  allowed_instances: Type.Array(Host, {
    maxItems: MAX_ALLOWED_INSTANCES,
    description: 'Instances the service accepts; empty: any instance',
  }),
  cors_origins: Type.Union([Type.Literal('*'), Type.Array(Origin, { minItems: 1, maxItems: MAX_CORS_ORIGINS })], {
    description: '* for any origin, or the exact origins allowed',
  }),
  /** Performance-gate thresholds of experiments created without their own `gates`. */
  gate_thresholds: GateThresholdDefaultsSchema,
};

export const IntegrationSettingsSchema = Type.Object(
  {
    ...integrationFields,
    applied: Type.Object(
      {
        live: Type.Array(Type.String()),
        at_restart: Type.Array(Type.String()),
      },
      { description: 'Which settings take effect at once and which at the next start' },
    ),
    updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'IntegrationSettings' },
);
export type IntegrationSettings = Static<typeof IntegrationSettingsSchema>;

export const IntegrationSettingsPatchSchema = Type.Object(
  {
    default_instance: Type.Optional(integrationFields.default_instance),
    allowed_instances: Type.Optional(integrationFields.allowed_instances),
    cors_origins: Type.Optional(integrationFields.cors_origins),
    gate_thresholds: Type.Optional(Type.Partial(GateThresholdDefaultsSchema, { additionalProperties: false })),
  },
  { additionalProperties: false, title: 'IntegrationSettingsPatch' },
);
export type IntegrationSettingsPatch = Static<typeof IntegrationSettingsPatchSchema>;

/** The stored integration values (no bookkeeping fields). */
export type IntegrationValues = Pick<IntegrationSettings, keyof typeof integrationFields>;

/** The integration settings of a deployment that never changed them (CORS: any origin). */
export const DEFAULT_INTEGRATION_VALUES: IntegrationValues = {
  default_instance: null,
  allowed_instances: [],
  cors_origins: '*',
  gate_thresholds: DEFAULT_GATE_THRESHOLD_DEFAULTS,
};
