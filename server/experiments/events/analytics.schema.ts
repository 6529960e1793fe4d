/** Wire schema of `POST /api/v1/analytics/events`: a batch of up to 500 client events. */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../../../src/schemas/common.schema.js';
import { REJECT_REASONS } from '../../../src/experiments/event-rules.js';

export const CLIENT_EVENT_TYPES = ['click', 'view', 'session_start', 'session_end'] as const;

export const MAX_EVENTS_PER_BATCH = 500;

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });

export const AnalyticsEventSchema = Type.Object(
  {
    type: StringEnum(CLIENT_EVENT_TYPES, {
      description: '`click` and `view` need `post_id`; `session_start` and `session_end` need `session_id`',
    }),
    user_id: Id('The user the event is about'),
    post_id: Type.Optional(Id('The recommended post clicked or viewed')),
    session_id: Type.Optional(Id('Groups events of one session; a click carrying it makes the session not a bounce')),
    timestamp: Type.Optional(Type.String({ format: 'date-time', description: 'When it happened (ISO 8601); default: when received' })),
  },
  { additionalProperties: false, title: 'AnalyticsEvent' },
);
export type AnalyticsEvent = Static<typeof AnalyticsEventSchema>;

export const EventBatchSchema = Type.Object(
  { events: Type.Array(AnalyticsEventSchema, { minItems: 1, maxItems: MAX_EVENTS_PER_BATCH }) },
  { additionalProperties: false, title: 'EventBatch' },
);
export type EventBatch = Static<typeof EventBatchSchema>;

const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const EventBatchResultSchema = Type.Object(
  {
    accepted: Count("Events that count (for experiments): stored, or added to the user's counts at tracking level `limited`"),
    rejected: Count('Events refused as untrue: they never count (stored with their reason at tracking level `full`)'),
    rejected_by_reason: Type.Object(
      Object.fromEntries(REJECT_REASONS.map((reason) => [reason, Type.Optional(Count(`Refused as ${reason}`))])),
      { additionalProperties: false, description: 'Refused events per reason (reasons with none are left out)' },
    ),
    rejections: Type.Array(
      Type.Object(
        { index: Count('Position of the event in the batch'), reason: StringEnum(REJECT_REASONS) },
        { additionalProperties: false },
      ),
      { description: 'Each refused event, in batch order' },
    ),
    not_stored: Count('Events of users at tracking level `none`: neither stored nor counted'),
  },
  { additionalProperties: false, title: 'EventBatchResult' },
);
export type EventBatchResult = {
  accepted: number;
  rejected: number;
  rejected_by_reason: Partial<Record<(typeof REJECT_REASONS)[number], number>>;
  rejections: { index: number; reason: (typeof REJECT_REASONS)[number] }[];
  not_stored: number;
};
