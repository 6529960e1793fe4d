/**
 * Headers on every response, errors and 404s included: X-Request-ID (the client's
 * when sane, else a UUID), X-Process-Time, X-Service-Version and X-API-Version.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { API_VERSION, SERVICE_VERSION } from '../version.js';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** fastify `genReqId`: keep a client's trace id when it is safe to echo. */
export function generateRequestId(request: { headers: Record<string, string | string[] | undefined> }): string {
  const supplied = request.headers['x-request-id'];
  return typeof supplied === 'string' && SANE_REQUEST_ID.test(supplied) ? supplied : randomUUID();
}

declare module 'fastify' {
  interface FastifyRequest {
    startedAt: bigint;
  }
}

async function requestContext(app: FastifyInstance): Promise<void> {
  app.decorateRequest('startedAt', 0n);
  app.addHook('onRequest', async (request, reply) => {
    request.startedAt = process.hrtime.bigint();
    reply.header('x-request-id', request.id);
    reply.header('x-service-version', SERVICE_VERSION);
    reply.header('x-api-version', API_VERSION);
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-process-time', processSeconds(request).toFixed(6));
  });
}

/** Seconds since the request arrived. */
export function processSeconds(request: FastifyRequest): number {
  if (request.startedAt === 0n) return 0;
  return Number(process.hrtime.bigint() - request.startedAt) / 1e9;
}

export const requestContextPlugin = fp(requestContext, { name: 'request-context' });
