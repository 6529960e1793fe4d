/**
 * The OpenAPI document, generated from the same TypeBox route schemas that
 * validate requests, served raw at /docs/json and explored at /docs. Route files
 * declare their own schemas; what every route shares (error statuses, headers,
 * descriptions, components) is completed here, once.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ErrorBodySchema } from '../../../src/schemas/common.schema.js';
import { SERVICE_VERSION } from '../version.js';
import { hoistTitledSchemas } from './openapi-components.js';
import { completeOperations, type OpenapiDocument } from './openapi-responses.js';
import { nameWildcardParameters } from './openapi-wildcards.js';

/** How to get a token to try the API here, shown at the top of /docs and on its Authorize dialog. */
const TOKEN_HINT =
  '**Getting a token:** on the service host, `recsvc token create --scopes read,write --user alice` prints one ' +
  '(add `admin` for experiments and analytics); apps obtain one through the OAuth endpoints (`/api/v1/oauth/*`, PKCE); ' +
  'or send your own Mastodon access token with `X-Social-Instance: your.instance`. Then choose **Authorize** and paste it.';

/** The explorer's wordmark instead of fastify's logo (the page's top bar). */
const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40" viewBox="0 0 120 40">' +
  '<text x="0" y="28" font-family="sans-serif" font-size="26" font-weight="bold" fill="#ffffff">recsvc</text></svg>';

async function openapi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'recsvc',
        description: `Recommendations, timelines and A/B experiments for a Mastodon-compatible network.\n\n${TOKEN_HINT}`,
        version: SERVICE_VERSION,
      },
      // Relative unless a public base URL is configured: the explorer then calls the service where clients reach it.
      servers: [{ url: app.publicUrl ?? '/', description: app.publicUrl ? 'Configured public URL' : 'This server' }],
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: TOKEN_HINT } },
        // The error body every added error status refers to; route schemas' copies are hoisted onto it.
        // TypeBox types its optional keywords `T | undefined`, which openapi-types' exact optional fields refuse.
        schemas: { Error: ErrorBodySchema as never },
      },
      security: [{ bearer: [] }],
      tags: [
        { name: 'operations', description: 'Health, metrics and agents' },
        { name: 'recommendations', description: 'Personalised recommendations' },
        { name: 'posts', description: 'Posts in Mastodon status shape' },
        { name: 'interactions', description: 'Interaction logging' },
        { name: 'experiments', description: 'A/B experiments (admin)' },
        { name: 'analytics', description: 'Client events' },
        { name: 'timelines', description: 'Mastodon timelines with recommendations blended in' },
        { name: 'settings', description: 'User and integration settings' },
        { name: 'rag', description: 'Questions answered from the documentation and the stored posts' },
        { name: 'oauth', description: "The service's own OAuth 2.0 server (apps, authorize, token, revoke)" },
      ],
    },
    // Route paths are the service's own; a public URL's path is a prefix in front of them, never part of them.
    stripBasePath: false,
    transformObject: (documentObject) => {
      const document = ('openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject) as OpenapiDocument;
      nameWildcardParameters(document);
      completeOperations(document);
      hoistTitledSchemas(document);
      return document as never;
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    theme: { title: 'recsvc API' },
    logo: { type: 'image/svg+xml', content: Buffer.from(LOGO_SVG) },
    uiConfig: { docExpansion: 'list', deepLinking: true },
    staticCSP: false,
  });
}

export const openapiPlugin = fp(openapi, { name: 'openapi' });
