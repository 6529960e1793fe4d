/**
 * A whole HTTP/1.1 error response written straight to a socket, for the errors Node's
 * parser raises before fastify sees a request (400 malformed, 408 timeout, 431 headers
 * too large). It carries what every other response carries: the spec's error body, a
 * request id, the version headers and the security headers; and it closes the connection.
 */
import { STATUS_CODES } from 'node:http';
import type { ErrorBody } from '../../../src/schemas/common.schema.js';
import { SECURITY_HEADERS } from './security-headers.js';
import { API_VERSION, SERVICE_VERSION } from '../version.js';

/** Every header of an error response written outside fastify, with `Connection: close`. */
export function errorResponseHeaders(body: ErrorBody, json: string): Array<readonly [string, string]> {
  return [
    ['content-type', 'application/json; charset=utf-8'],
    ['content-length', String(Buffer.byteLength(json))],
    ['connection', 'close'],
    ['x-request-id', body.request_id],
    ['x-process-time', '0.000000'],
    ['x-service-version', SERVICE_VERSION],
    ['x-api-version', API_VERSION],
    ...SECURITY_HEADERS,
  ];
}

/** The bytes of a complete `Connection: close` error response. */
export function rawErrorResponse(body: ErrorBody): string {
  const json = JSON.stringify(body);
  const head = errorResponseHeaders(body, json)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\r\n');
  return `HTTP/1.1 ${body.status_code} ${STATUS_CODES[body.status_code] ?? 'Error'}\r\n${head}\r\n\r\n${json}`;
}
