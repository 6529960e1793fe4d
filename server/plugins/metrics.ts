/**
 * Request metrics and `GET /metrics` (Prometheus text). The `endpoint` label is
 * the route pattern (`/api/v1/posts/:id`), never the raw URL, so cardinality
 * stays bounded.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { processSeconds } from './request-context.js';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: ServiceMetrics;
  }
}

async function metricsPlugin(app: FastifyInstance, options: { metrics: ServiceMetrics }): Promise<void> {
  const { metrics } = options;
  app.decorate('metrics', metrics);
  app.addHook('onResponse', async (request, reply) => {
    const endpoint = request.routeOptions.url ?? 'unmatched';
    metrics.requestCount.inc({ method: request.method, endpoint, status: String(reply.statusCode) });
    metrics.requestLatency.observe({ method: request.method, endpoint }, processSeconds(request));
    // Requests answered before identity was resolved (a refused preflight, a shed request) have none.
    if (request.identity?.kind === 'authenticated') metrics.touchUser(request.identity.subjectKey);
  });
  app.get(
    '/metrics',
    {
      config: { access: 'public' },
      schema: {
        tags: ['operations'],
        summary: 'Prometheus metrics (text exposition format)',
        operationId: 'getMetrics',
        response: { 200: { description: 'Prometheus text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
    async (_request, reply) => {
      reply.type(metrics.registry.contentType);
      return metrics.registry.metrics();
    },
  );
}

export const metricsPluginFp = fp(metricsPlugin, { name: 'metrics' });
