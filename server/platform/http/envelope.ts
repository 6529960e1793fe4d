/** The success envelope `{ data, meta: { request_id, timestamp } }` of decisions.md. */
import type { FastifyRequest } from 'fastify';

/** Wraps `data` in the success envelope of this request. */
export function envelope<T>(request: FastifyRequest, data: T): { data: T; meta: { request_id: string; timestamp: string } } {
  return { data, meta: { request_id: request.id, timestamp: new Date().toISOString() } };
}
