/** Errors only the CLI raises, and the one line every typed error is reported as. */
import { CodedError } from '../../src/errors.js';
import { EXIT, type ExitCode } from '../../src/exit-codes.js';

/** An error a command reports as one line on stderr, with its exit code (a usage error by default). */
export class CliError extends CodedError {
  /** The server's id of the failed request, printed last so it can be found in the server's log. */
  readonly requestId: string | undefined;

  constructor(message: string, exitCode: ExitCode = EXIT.usage, options: { hint?: string; requestId?: string } = {}) {
    super(message, exitCode, options.hint);
    this.requestId = options.requestId;
  }
}

/**
 * The server answered with an error body (exit 3): its status and the field it named are kept,
 * for a command that maps a field back to its own input (`recsvc import`: an item to its line).
 */
export class ApiError extends CliError {
  constructor(
    message: string,
    readonly status: number,
    readonly field: string | undefined,
    /** The body's `message` as the server wrote it. */
    readonly serverMessage: string,
    options: { hint?: string; requestId?: string; retryAfter?: number } = {},
  ) {
    super(message, EXIT.server, options);
    this.retryAfter = options.retryAfter;
  }

  /** Seconds the server asked to wait before trying again (429, or a 503 shedding load), when it said. */
  readonly retryAfter: number | undefined;
}

/** A usage or input error (exit 2). */
export function usageError(message: string): CliError {
  return new CliError(message, EXIT.usage);
}

/** The line run.ts prints for a typed error: `message — hint (request_id …)`, each part only when known. */
export function errorLine(error: CodedError): string {
  const hint = error.hint === undefined ? '' : ` — ${error.hint}`;
  const requestId = error instanceof CliError && error.requestId !== undefined ? ` (request_id ${error.requestId})` : '';
  return `${error.message}${hint}${requestId}`;
}
