/**
 * Runs the program and maps every failure to one line on stderr and an exit
 * code: usage errors (unknown command or flag, bad value) exit 2, never a stack.
 */
import { CommanderError } from 'commander';
import { buildProgram } from './program.js';
import { CliError } from './support/cli-error.js';
import { EXIT } from './support/exit-codes.js';

/** Parses argv, runs the command, and returns the exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram();
  program.exitOverride();
  for (const command of allCommands(program)) command.exitOverride();
  try {
    await program.parseAsync(argv);
    return process.exitCode === undefined ? EXIT.ok : Number(process.exitCode);
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return EXIT.ok;
      // commander already printed its one-line message and the help hint.
      return EXIT.usage;
    }
    if (error instanceof CliError) {
      process.stderr.write(`recsvc: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`recsvc: unexpected error: ${(error as Error).message}\n`);
    return EXIT.server;
  }
}

function allCommands(program: ReturnType<typeof buildProgram>): ReturnType<typeof buildProgram>[] {
  return program.commands.flatMap((command) => [command, ...allCommands(command)]);
}
