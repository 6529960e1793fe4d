/**
 * Responses for requests that never reach a route: Node's parser errors (the server's
 * `clientError` event: malformed requests, 408 request timeout, 431 headers too large)
 * and fastify's router errors (a path that is not valid percent-encoding, a path
 * parameter over its length limit: 414). Both get the spec's error body and the headers
 * every response carries; neither ever gets fastify's or Node's own body.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import { ValidationError } from '../../../src/errors.js';
import type { ErrorBody } from '../../../src/schemas/common.schema.js';
import { errorResponseHeaders, rawErrorResponse } from './raw-response.js';
import { SECURITY_HEADERS } from './security-headers.js';
import { API_VERSION, SERVICE_VERSION } from '../version.js';
import { sendError } from './error-handler.js';

type ParserError = Error & { code?: string };

/** Status, name and message for a parser error. */
function describeParserError(error: ParserError): Omit<ErrorBody, 'request_id'> {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { error: 'Request timeout', message: 'The request was not received completely in time', status_code: 408 };
    case 'HPE_HEADER_OVERFLOW':
      return {
        error: 'Request header fields too large',
        message: 'The request line and headers are larger than the service accepts',
        status_code: 431,
      };
    default:
      return { error: 'Invalid request', message: 'The request is not well-formed HTTP', status_code: 400 };
  }
}

/** fastify `clientErrorHandler`: answer in the spec's shape when the socket can still take it, then close. */
export function clientErrorHandler(this: FastifyInstance, error: ParserError, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const body = { ...describeParserError(error), request_id: randomUUID() };
  this.log.debug({ err: error, request_id: body.request_id }, 'client error');
  // A response already under way on this socket cannot be followed by another one; it is let
  // finish (the bytes after a request, e.g. the rest of a body no route read, arrive here as
  // a malformed next request), and only then is the socket closed.
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (inFlight?.headersSent && !inFlight.writableFinished && !inFlight.destroyed) {
    inFlight.once('finish', () => closeLingering(socket));
    setTimeout(() => socket.destroy(), IN_FLIGHT_GRACE_MS).unref();
    return;
  }
  if (socket.writable && !inFlight?.headersSent) socket.write(rawErrorResponse(body));
  closeLingering(socket);
}

/** How long a response already under way may take to finish after a parser error on its socket. */
const IN_FLIGHT_GRACE_MS = 10_000;
/** How long a closing socket keeps reading (and dropping) what the client still sends. */
const LINGER_MS = 2_000;

/**
 * Closes the socket once what was written has gone out, reading and dropping whatever the
 * client is still sending meanwhile (a "lingering close", as nginx does): closing a socket with
 * unread input makes the kernel send a reset, which can destroy the answer before the client
 * has read it. Destroyed when the client closes its side, or after LINGER_MS at the latest.
 */
function closeLingering(socket: Duplex): void {
  if (socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
  // The HTTP parser has failed: nothing more on this socket is a request.
  socket.removeAllListeners('data');
  socket.on('data', () => undefined);
  socket.resume();
  socket.end();
}

/**
 * Node's `checkExpectation` event: an `Expect` header other than `100-continue`. Without a
 * listener Node answers a bare 417; this one answers in the spec's shape and closes.
 */
export function expectationFailed(request: IncomingMessage, response: ServerResponse): void {
  const body: ErrorBody = {
    error: 'Expectation failed',
    message: `Expect: ${String(request.headers.expect)} is not supported (only 100-continue is)`,
    status_code: 417,
    request_id: randomUUID(),
  };
  const json = JSON.stringify(body);
  response.writeHead(417, errorResponseHeaders(body, json).flat());
  response.end(json);
}

/** fastify `frameworkErrors`: router failures before any hook ran, so the usual headers are set here. */
export const frameworkErrorHandler: NonNullable<FastifyServerOptions['frameworkErrors']> = (
  error,
  request: FastifyRequest,
  reply: FastifyReply,
) => {
  reply.header('x-request-id', request.id);
  reply.header('x-process-time', '0.000000');
  reply.header('x-service-version', SERVICE_VERSION);
  reply.header('x-api-version', API_VERSION);
  for (const [name, value] of SECURITY_HEADERS) reply.header(name, value);
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return void sendError(request, reply, {
      error: 'URI too long',
      message: 'A path segment is longer than the service accepts',
      status_code: 414,
    });
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    return void sendError(request, reply, {
      error: 'Invalid request',
      message: 'The path is not valid percent-encoding',
      status_code: 400,
    });
  }
  request.log.error({ err: error }, 'router error');
  return void sendError(request, reply, {
    error: 'Internal server error',
    message: 'An unexpected error occurred; quote the request_id when reporting it',
    status_code: 500,
  });
};

/**
 * Requests Node would refuse with an empty body, let through (`requireHostHeader: false`)
 * to be refused here in the spec's shape: HTTP/1.1 without `Host`. Registered after the
 * request-context and security-header hooks, so the answer carries their headers.
 */
async function requestSanity(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', async (request, reply) => {
    lingerIfBodyUnread(request.raw);
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      reply.header('connection', 'close');
      throw new ValidationError('HTTP/1.1 requests must carry a Host header');
    }
  });
}

export const requestSanityPlugin = fp(requestSanity, { name: 'request-sanity' });

/**
 * When Node closes a connection after its response (`Connection: close`) while the request's
 * body is still arriving (a route that never reads it, e.g. a GET sent with a large body), it
 * destroys the socket with unread input, and the kernel's reset can destroy the response before
 * the client has read it. Such a socket closes lingering instead (closeLingering); a request
 * whose body has all arrived closes as Node does.
 */
function lingerIfBodyUnread(request: IncomingMessage): void {
  const length = request.headers['content-length'];
  if ((length === undefined || length === '0') && request.headers['transfer-encoding'] === undefined) return;
  const socket = request.socket as Duplex & { destroySoon?: () => void };
  const destroySoon = socket.destroySoon?.bind(socket);
  if (!destroySoon) return;
  socket.destroySoon = () => (request.complete ? destroySoon() : closeLingering(socket));
}
