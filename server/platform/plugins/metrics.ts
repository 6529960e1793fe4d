/**
 * Request metrics and `GET /metrics` (Prometheus text). The `endpoint` label is
 * the route pattern (`/api/v1/posts/:id`), never the raw URL, so cardinality
 * stays bounded; forwarded Mastodon paths get their Mastodon route (./metric-routes.ts).
 * Timeline pages answered degraded (X-Recsvc-Degraded) are counted per instance.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { endpointLabeller } from './metric-routes.js';
import { processSeconds } from './request-context.js';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: ServiceMetrics;
  }
}

async function metricsPlugin(app: FastifyInstance, options: { metrics: ServiceMetrics }): Promise<void> {
  const { metrics } = options;
  app.decorate('metrics', metrics);
  const endpointOf = endpointLabeller();
  app.addHook('onResponse', async (request, reply) => {
    const endpoint = endpointOf(request.routeOptions.url, request.url);
    if (reply.getHeader('x-recsvc-degraded') !== undefined) {
      const instance = request.headers['x-social-instance'];
      metrics.degradedPages.inc({
        instance: metrics.instanceLabel(typeof instance === 'string' ? instance.trim().toLowerCase() : 'default'),
      });
    }
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
