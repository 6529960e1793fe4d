/**
 * The OpenAPI document, generated from the same TypeBox route schemas that
 * validate requests, served raw at /docs/json and explored at /docs.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { SERVICE_VERSION } from '../version.js';

async function openapi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'recsvc',
        description: 'Recommendations, timelines and A/B experiments for a Mastodon-compatible network.',
        version: SERVICE_VERSION,
      },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      },
      security: [{ bearer: [] }],
      tags: [
        { name: 'operations', description: 'Health, metrics and agents' },
        { name: 'recommendations', description: 'Personalised recommendations' },
        { name: 'posts', description: 'Posts in Mastodon status shape' },
        { name: 'interactions', description: 'Interaction logging' },
        { name: 'experiments', description: 'A/B experiments (admin)' },
        { name: 'analytics', description: 'Client events' },
      ],
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
    staticCSP: false,
  });
}

export const openapiPlugin = fp(openapi, { name: 'openapi' });
