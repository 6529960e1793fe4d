/**
 * Runs the program and maps every failure to one line on stderr and an exit code,
 * in one place: commander's usage errors exit 2, a typed error (src/errors.ts
 * CodedError: the domain's errors, input-file errors, the CLI's own) exits with the
 * code it carries, Ctrl-C 130, anything else 3; never a stack.
 */
import { CommanderError, type Command } from 'commander';
import { CodedError } from '../src/errors.js';
import { EXIT } from '../src/exit-codes.js';
import { buildProgram } from './program.js';
import { errorLine } from './support/cli-error.js';
import { prepareColours } from './support/output.js';

/** Commands that stop gracefully on SIGINT themselves (serve finishes in-flight requests, then exits 0). */
const HANDLES_SIGINT: ReadonlySet<string> = new Set(['serve']);

/** Parses argv, runs the command, and returns the exit code. */
export async function runCli(argv: string[]): Promise<number> {
  exitQuietlyOnClosedPipe(process.stdout);
  const [program] = await Promise.all([buildProgram(argv), prepareColours()]);
  program.exitOverride();
  for (const command of allCommands(program)) command.exitOverride();
  program.hook('preAction', (_program, action) => {
    if (!HANDLES_SIGINT.has(action.name())) exitOnInterrupt();
  });
  try {
    await program.parseAsync(argv);
    return process.exitCode === undefined ? EXIT.ok : Number(process.exitCode);
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return EXIT.ok;
      // commander already printed its one-line message and the help hint.
      return EXIT.usage;
    }
    if (error instanceof CodedError) {
      process.stderr.write(`recsvc: ${errorLine(error)}\n`);
      return error.exitCode;
    }
    if (error instanceof Error && error.name === 'ExitPromptError') {
      // Ctrl-C at an @inquirer prompt: the terminal is in raw mode, so it arrives as a key, not a signal.
      process.stderr.write('recsvc: cancelled\n');
      return EXIT.interrupted;
    }
    process.stderr.write(`recsvc: unexpected error: ${(error as Error).message}\n`);
    return EXIT.server;
  }
}

function allCommands(program: Command): Command[] {
  return program.commands.flatMap((command) => [command, ...allCommands(command)]);
}

/** Ctrl-C ends the command at once with 130 and one line, instead of a signal death or an unwinding stack. */
function exitOnInterrupt(): void {
  process.on('SIGINT', () => {
    process.stderr.write(`${process.stderr.isTTY ? '\n' : ''}recsvc: interrupted\n`);
    process.exit(EXIT.interrupted);
  });
}

/**
 * A reader that stops early (`recsvc --help | head`) closes the pipe: the next write fails with
 * EPIPE, which unhandled would print a stack. Nothing more can be shown, so end as a finished
 * command would (the exit code so far, 0 by default).
 */
function exitQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}
