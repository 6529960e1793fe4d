/**
 * The spec's security headers on every response, through @fastify/helmet:
 * nosniff, SAMEORIGIN framing, the legacy XSS filter in block mode, and a
 * same-origin Content-Security-Policy that the /docs explorer still works under.
 */
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

async function securityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'self'"],
        'base-uri': ["'self'"],
        'frame-ancestors': ["'self'"],
        'form-action': ["'self'"],
        'object-src': ["'none'"],
        'script-src': ["'self'"],
        // The OpenAPI explorer sets inline styles and loads its logo as a data: URL.
        'style-src': ["'self'", "'unsafe-inline'"],
        'img-src': ["'self'", 'data:'],
      },
    },
    frameguard: { action: 'sameorigin' },
    xssFilter: false,
    crossOriginEmbedderPolicy: false,
  });
  // helmet writes `X-XSS-Protection: 0`; the spec asks for block mode.
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('x-xss-protection', '1; mode=block');
  });
}

export const securityHeadersPlugin = fp(securityHeaders, { name: 'security-headers' });
