/**
 * One error handler: domain errors, validation failures and framework errors
 * (404, 413, 415, bad JSON) all leave as the spec's error body, never as HTML
 * or a stack trace. `request_id` equals the X-Request-ID header.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ErrorBody } from '../../../src/schemas/common.schema.js';
import { AppError, RateLimitError, UnavailableError } from '../../../src/errors.js';
import { isDatabaseBusy } from '../db/busy-wait.js';
import { validationToError, type ValidationIssue } from './validation-errors.js';

const FRAMEWORK_ERRORS: Record<number, string> = {
  400: 'Invalid request',
  404: 'Resource not found',
  405: 'Method not allowed',
  406: 'Not acceptable',
  408: 'Request timeout',
  413: 'Payload too large',
  414: 'URI too long',
  415: 'Unsupported media type',
  429: 'Rate limit exceeded',
  431: 'Request header fields too large',
};

/** Sends the spec's error body. */
export function sendError(request: FastifyRequest, reply: FastifyReply, body: Omit<ErrorBody, 'request_id'>): FastifyReply {
  return reply
    .code(body.status_code)
    .type('application/json; charset=utf-8')
    .send({ ...body, request_id: request.id });
}

function toErrorBody(error: FastifyError | AppError, request: FastifyRequest): Omit<ErrorBody, 'request_id'> {
  if (error instanceof AppError) {
    return {
      error: error.error,
      message: error.message,
      ...(error.field !== undefined ? { field: error.field } : {}),
      status_code: error.statusCode,
      ...(error instanceof RateLimitError ? { retry_after: error.retryAfter } : {}),
    };
  }
  const fastifyError = error as FastifyError & { validation?: ValidationIssue[] };
  if (fastifyError.validation) {
    const appError = validationToError(fastifyError.validation, fastifyError.validationContext);
    return toErrorBody(appError, request);
  }
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return { error: FRAMEWORK_ERRORS[status] ?? 'Invalid request', message: clientMessage(fastifyError), status_code: status };
  }
  request.log.error({ err: error }, 'unhandled error');
  return {
    error: 'Internal server error',
    message: 'An unexpected error occurred; quote the request_id when reporting it',
    status_code: 500,
  };
}

function clientMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is larger than the service accepts';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Request bodies must be sent as Content-Type: application/json';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'Body is empty but Content-Type is application/json';
    default:
      return error.message;
  }
}

/** Headers an error status calls for: Retry-After on 429 and 503, a Bearer challenge on 401 (RFC 6750). */
function setErrorHeaders(error: unknown, request: FastifyRequest, reply: FastifyReply, body: Omit<ErrorBody, 'request_id'>): void {
  if (body.retry_after !== undefined) reply.header('retry-after', String(body.retry_after));
  if (error instanceof UnavailableError && error.retryAfter !== undefined) reply.header('retry-after', String(error.retryAfter));
  if (body.status_code === 401) {
    const rejected = request.identity?.kind === 'anonymous' && request.identity.rejectedToken;
    reply.header('www-authenticate', rejected ? 'Bearer realm="recsvc", error="invalid_token"' : 'Bearer realm="recsvc"');
  }
  // Answered before its body arrived (401, 429, 503 from a hook): do not wait for the rest of a
  // slow or endless body on this connection; close it once the answer is out.
  if (!request.raw.complete) reply.header('connection', 'close');
}

/** Seconds a client waits before retrying a request the database was too busy for. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * SQLite's write lock held by another process past the busy timeout (5 s; a `recsvc import`,
 * a second service on the same file): nothing was stored, a retry may succeed — a 503 with
 * Retry-After, not an unexplained 500.
 */
function busyAsUnavailable(error: unknown): unknown {
  if (!isDatabaseBusy(error)) return error;
  return new UnavailableError(
    'The database is busy: another process holds its write lock; nothing was stored, retry shortly',
    BUSY_RETRY_AFTER_SECONDS,
  );
}

async function errorHandler(app: FastifyInstance): Promise<void> {
  app.setErrorHandler((raised, request, reply) => {
    const error = busyAsUnavailable(raised);
    if (error !== raised) request.log.warn({ err: raised }, 'database busy: the write lock was held past the busy timeout');
    const body = toErrorBody(error as FastifyError, request);
    setErrorHeaders(error, request, reply, body);
    return sendError(request, reply, body);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, {
      error: 'Resource not found',
      message: `No route for ${request.method} ${request.url.split('?')[0]}`,
      status_code: 404,
    }),
  );
}

export const errorHandlerPlugin = fp(errorHandler, { name: 'error-handler' });
