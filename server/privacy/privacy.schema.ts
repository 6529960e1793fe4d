/** Wire shapes of `/api/v1/privacy` (TypeBox): the settings view, its PATCH, the export and the erasure report. */
import { Type, type Static } from '@sinclair/typebox';
import { TRACKING_LEVELS } from '../../src/privacy/tracking-level.js';
import { LiteralUnion, StringEnum, UserIdSchema } from '../../src/schemas/common.schema.js';

const TrackingLevelSchema = StringEnum(TRACKING_LEVELS, {
  description: '`full`: everything logged and used; `limited`: ranking signals and aggregate counts only; `none`: nothing stored',
});

export const PrivacyQuerySchema = Type.Object({
  user_id: Type.Optional(UserIdSchema),
});

export const PrivacyPatchSchema = Type.Object(
  { tracking_level: TrackingLevelSchema },
  { additionalProperties: false, title: 'PrivacyPatch' },
);
export type PrivacyPatch = Static<typeof PrivacyPatchSchema>;

const ErasureCountsSchema = Type.Object(
  {
    deleted: Type.Record(Type.String(), Type.Integer(), { description: 'Rows deleted per table' }),
    rows_deleted: Type.Integer(),
    credentials_revoked: Type.Integer({ description: 'Live service tokens and OAuth token families deleted' }),
    rag_chunks_removed: Type.Integer({ description: "Chunks of the user's posts removed from the RAG index" }),
  },
  { title: 'ErasureReport' },
);

export const PrivacySettingsSchema = Type.Object(
  {
    user_id: Type.String(),
    tracking_level: TrackingLevelSchema,
    source: LiteralUnion(['user', 'default'] as const, {
      description: "Whether the user chose the level or it is the deployment's default",
    }),
    default_tracking_level: TrackingLevelSchema,
    stores_interactions: Type.Boolean(),
    stores_event_rows: Type.Boolean(),
    stores_aggregate_counts: Type.Boolean(),
    enrolled_in_experiments: Type.Boolean({ description: 'Whether the user may be enrolled in experiments' }),
    retention_days: Type.Union([Type.Integer(), Type.Null()], { description: 'Days stored rows are kept; null: kept' }),
  },
  { title: 'PrivacySettings' },
);
export type PrivacySettingsView = Static<typeof PrivacySettingsSchema>;

export const PrivacyPatchResultSchema = Type.Object(
  {
    ...PrivacySettingsSchema.properties,
    erased: Type.Union([ErasureCountsSchema, Type.Null()], {
      description: 'What the change erased (to `none`: tracking data; to `limited`: event rows)',
    }),
  },
  { title: 'PrivacyPatchResult' },
);

export const PrivacyExportSchema = Type.Object(
  {
    user_id: Type.String(),
    pseudonym: Type.String({ description: 'What stands for the user in analytics tables' }),
    exported_at: Type.String({ format: 'date-time' }),
    privacy: PrivacySettingsSchema,
    tables: Type.Record(Type.String(), Type.Array(Type.Record(Type.String(), Type.Unknown())), {
      description: 'Every row held about the user, per table (token hashes and binary columns left out)',
    }),
  },
  { title: 'PrivacyExport' },
);
export type PrivacyExport = Static<typeof PrivacyExportSchema>;

export const ErasureResultSchema = Type.Object({ user_id: Type.String(), ...ErasureCountsSchema.properties }, { title: 'ErasureResult' });
