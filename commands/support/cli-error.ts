/** An error a command reports as one line on stderr, with its exit code. */
import { EXIT, type ExitCode } from './exit-codes.js';

export class CliError extends Error {
  readonly exitCode: ExitCode;

  constructor(message: string, exitCode: ExitCode = EXIT.usage) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** A usage or input error (exit 2). */
export function usageError(message: string): CliError {
  return new CliError(message, EXIT.usage);
}
