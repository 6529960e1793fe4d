/** `GET /health` (liveness) and `GET /api/v1/health` (components, resources). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SERVICE_VERSION } from '../version.js';
import { DetailedHealthSchema, LivenessSchema } from './health.schema.js';
import { checkDatabase, checkRedis, processStats, type ComponentHealth, type InstanceHealthReading } from './health.service.js';

export interface HealthRoutesOptions {
  /** A real database round trip resolving with its latency in ms (DatabaseHandle.ping). */
  ping: () => Promise<number>;
  /** The RAG index's state and size (server/rag); `not_configured` without it. */
  rag?: () => { status: string; chunks_loaded: number };
  /** One Redis round trip (server/platform/redis), when RECSVC_REDIS_URL is set; `not_configured` without it. */
  redis?: () => Promise<ComponentHealth>;
  /** The social instances talked to and whether each answers (server/platform/social/instance-health.ts). */
  instances?: () => InstanceHealthReading[];
}

export const healthRoutes: FastifyPluginAsyncTypebox<HealthRoutesOptions> = async (app, options) => {
  app.get(
    '/health',
    {
      config: { access: 'public' },
      schema: { tags: ['operations'], summary: 'Liveness check', operationId: 'getHealth', response: { 200: LivenessSchema } },
    },
    async () => ({ status: 'healthy', timestamp: new Date().toISOString() }),
  );

  app.get(
    '/api/v1/health',
    {
      config: { access: 'public' },
      schema: {
        tags: ['operations'],
        summary: 'Detailed health: database round trip, optional components, process resources',
        operationId: 'getDetailedHealth',
        response: { 200: DetailedHealthSchema },
      },
    },
    async () => {
      const database = await checkDatabase(options.ping);
      const redis = options.redis ? await checkRedis(options.redis) : undefined;
      const instances = options.instances?.() ?? [];
      const down = instances.filter((i) => i.status === 'down').length;
      // An instance down degrades its users' timelines, not the service: reported, but the service stays healthy.
      const failing = database.status !== 'connected' || (redis !== undefined && redis.status !== 'connected');
      return {
        status: failing ? 'degraded' : 'healthy',
        version: SERVICE_VERSION,
        components: {
          database,
          redis: redis ?? { status: 'not_configured' },
          rag_service: options.rag?.() ?? { status: 'not_configured', chunks_loaded: 0 },
          instances: { status: down > 0 ? 'degraded' : 'ok', down, instances },
        },
        ...processStats(),
      };
    },
  );
};
