/** Wire shapes of the health endpoints (spec, Health records). */
import { Type } from '@sinclair/typebox';

export const LivenessSchema = Type.Object({
  status: Type.String({ examples: ['healthy'] }),
  timestamp: Type.String({ format: 'date-time' }),
});

const ComponentSchema = Type.Object({
  status: Type.String(),
  latency_ms: Type.Optional(Type.Number()),
  message: Type.Optional(Type.String()),
});

export const DetailedHealthSchema = Type.Object({
  status: Type.String({ description: '`healthy`, or `degraded` when a component check fails' }),
  version: Type.String(),
  components: Type.Object({
    database: ComponentSchema,
    redis: ComponentSchema,
    rag_service: Type.Object({ status: Type.String(), chunks_loaded: Type.Integer() }),
    instances: Type.Object(
      {
        status: Type.String({ description: '`ok`, or `degraded` while an instance does not answer' }),
        down: Type.Integer(),
        instances: Type.Array(
          Type.Object({
            instance: Type.String(),
            status: Type.String({ description: '`up` or `down` (since its last exchange failed)' }),
            requests: Type.Integer(),
            errors: Type.Integer(),
            last_error: Type.Optional(Type.String()),
            down_since: Type.Optional(Type.String({ format: 'date-time' })),
          }),
        ),
      },
      { description: 'Social instances the service has talked to since it started (at most 200, most recent)' },
    ),
  }),
  uptime_seconds: Type.Integer(),
  memory_usage_mb: Type.Number(),
  cpu_percent: Type.Number(),
});
