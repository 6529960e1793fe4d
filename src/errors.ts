/**
 * Domain errors shared by the server and the CLI. The server's error handler maps
 * each to the spec's error body; the CLI maps them to exit codes.
 */

/** Base class: an error that knows its HTTP status and the spec's short error name. */
export class AppError extends Error {
  readonly statusCode: number;
  readonly error: string;
  readonly field: string | undefined;

  constructor(statusCode: number, error: string, message: string, field?: string) {
    super(message);
    this.name = new.target.name;
    this.statusCode = statusCode;
    this.error = error;
    this.field = field;
  }
}

/** 400 `Invalid request`: a missing or malformed parameter, named in `field`. */
export class ValidationError extends AppError {
  constructor(message: string, field?: string) {
    super(400, 'Invalid request', message, field);
  }
}

/** 400 `Invalid parameter`: a parameter whose value is not one of the allowed ones. */
export class InvalidParameterError extends AppError {
  constructor(message: string, field: string) {
    super(400, 'Invalid parameter', message, field);
  }
}

/** 401 `Authentication required`: missing, invalid or expired credentials. */
export class AuthenticationError extends AppError {
  constructor(message = 'A valid bearer token is required') {
    super(401, 'Authentication required', message);
  }
}

/** 403 `Forbidden`: valid credentials without the needed scope or ownership. */
export class ForbiddenError extends AppError {
  constructor(message = 'Insufficient permissions') {
    super(403, 'Forbidden', message);
  }
}

/** 404 `Resource not found`. */
export class NotFoundError extends AppError {
  constructor(message = 'The requested resource does not exist') {
    super(404, 'Resource not found', message);
  }
}

/** 409 `Conflict`: the resource's current state does not allow the operation. */
export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, 'Conflict', message);
  }
}

/** 429 `Rate limit exceeded`, with the seconds until the window resets. */
export class RateLimitError extends AppError {
  readonly retryAfter: number;

  constructor(retryAfter: number, message = 'Too many requests: slow down and retry later') {
    super(429, 'Rate limit exceeded', message);
    this.retryAfter = retryAfter;
  }
}

/** 503 `Service unavailable`: overloaded, shutting down, or a dependency cannot be reached. */
export class UnavailableError extends AppError {
  /** Seconds after which a retry may succeed (the `Retry-After` header), when known. */
  readonly retryAfter: number | undefined;

  constructor(message: string, retryAfter?: number) {
    super(503, 'Service unavailable', message);
    this.retryAfter = retryAfter;
  }
}
