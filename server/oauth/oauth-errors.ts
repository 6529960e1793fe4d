/**
 * OAuth error responses (RFC 6749 §5.2, RFC 7009, RFC 7591): `error` is the OAuth code and
 * `error_description` says what was wrong. The body also carries the spec's `message`,
 * `status_code` and `request_id`, which OAuth clients ignore (unknown members), so one body
 * satisfies both the RFCs and the service's own error shape.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../src/errors.js';
import { validationToError, type ValidationIssue } from '../platform/plugins/validation-errors.js';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'server_error'
  | 'temporarily_unavailable'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata';

const STATUS: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  invalid_scope: 400,
  access_denied: 403,
  server_error: 500,
  temporarily_unavailable: 503,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
};

/** An OAuth failure: answered as an OAuth error body (or, at the authorize endpoint, redirected to the client). */
export class OAuthError extends AppError {
  readonly code: OAuthErrorCode;

  constructor(code: OAuthErrorCode, description: string, status = STATUS[code]) {
    super(status, code, description);
    this.code = code;
  }
}

/** The realm of the Basic challenge sent with `invalid_client` (RFC 6749 §5.2). */
const CLIENT_CHALLENGE = 'Basic realm="recsvc", charset="UTF-8"';

/** Sends an OAuth error body, with the Basic challenge on 401 and no caching. */
export function sendOAuthError(request: FastifyRequest, reply: FastifyReply, error: OAuthError): FastifyReply {
  if (error.statusCode === 401) reply.header('www-authenticate', CLIENT_CHALLENGE);
  return reply.code(error.statusCode).header('cache-control', 'no-store').type('application/json; charset=utf-8').send({
    error: error.code,
    error_description: error.message,
    message: error.message,
    status_code: error.statusCode,
    request_id: request.id,
  });
}

/**
 * The OAuth form of an error raised on an OAuth route: its own errors, and the request's
 * validation, parsing and size failures as `invalid_request` (with their own status: 400,
 * 413, 415). Undefined for what is not about the request (429, 5xx): those keep the
 * service's error body.
 */
export function asOAuthError(error: unknown): OAuthError | undefined {
  if (error instanceof OAuthError) return error;
  const validation = (error as { validation?: ValidationIssue[] }).validation;
  if (Array.isArray(validation)) {
    const context = (error as { validationContext?: string }).validationContext;
    return new OAuthError('invalid_request', validationToError(validation, context).message);
  }
  const status = error instanceof AppError ? error.statusCode : (error as FastifyError).statusCode;
  if (status === undefined || status < 400 || status >= 500 || status === 429 || status === 401 || status === 403) return undefined;
  return new OAuthError('invalid_request', (error as Error).message, status);
}
