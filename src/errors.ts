/**
 * Domain errors shared by the server and the CLI. Each carries what both sides need:
 * the server's error handler maps it to the spec's error body (status, short name,
 * field); the CLI's one funnel (commands/run.ts) prints its message and hint on one
 * line and exits with its exit code. No command wraps an error to change its code.
 */
import { EXIT, type ExitCode } from './exit-codes.js';

/** An error the CLI reports as one line (`message`, then ` — hint` when there is one) and exits with `exitCode`. */
export class CodedError extends Error {
  readonly exitCode: ExitCode;
  /** What the user can do about it, when that is not obvious from the message. */
  readonly hint: string | undefined;

  constructor(message: string, exitCode: ExitCode, hint?: string) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.hint = hint;
  }
}

/** A bad flag, setting or input file: exit 2 (usage or input error). */
export class InputError extends CodedError {
  constructor(message: string, hint?: string) {
    super(message, EXIT.usage, hint);
  }
}

/**
 * Base class: an error that knows its HTTP status and the spec's short error name. Raised
 * in the CLI's own process it is about the user's input (exit 2), a 5xx one excepted (exit 3).
 */
export class AppError extends CodedError {
  readonly statusCode: number;
  readonly error: string;
  readonly field: string | undefined;

  constructor(statusCode: number, error: string, message: string, field?: string) {
    super(message, statusCode >= 500 ? EXIT.server : EXIT.usage);
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
