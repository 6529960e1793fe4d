/**
 * CORS for browser clients on other origins (Elk, Phanpy): the API uses bearer
 * tokens and no cookies, so any origin may call it by default; a deployment can
 * list the origins it allows. Preflights are answered before authentication.
 */
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export interface CorsOptions {
  /** `*` for any origin, or exact origins such as `https://elk.zone`. */
  origins: '*' | readonly string[];
}

/** Request headers a browser client may send (Idempotency-Key: Mastodon clients send it when posting, and the proxy forwards it). */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'X-Social-Instance',
  'X-Request-ID',
  'Accept-Language',
  'Idempotency-Key',
];
/** Response headers a browser client may read (X-Recsvc-Degraded: a timeline page came from the service's store). */
export const CORS_EXPOSED_HEADERS = [
  'Link',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Request-ID',
  'Retry-After',
  'X-Recsvc-Degraded',
];

async function corsPlugin(app: FastifyInstance, options: CorsOptions): Promise<void> {
  await app.register(cors, {
    origin: options.origins === '*' ? '*' : [...options.origins],
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    credentials: false,
    maxAge: 600,
    // Answer preflights at once (onRequest), before identity and rate limits.
    hook: 'onRequest',
    // An OPTIONS that is not a valid preflight gets the same 204, not the plugin's text/plain 400.
    strictPreflight: false,
  });
}

export const corsPluginFp = fp(corsPlugin, { name: 'cors' });
