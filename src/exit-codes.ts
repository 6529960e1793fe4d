/**
 * Exit codes of every command (decisions.md, Command-line exit codes). They live in
 * src/ because the domain's errors carry theirs (errors.ts): the CLI maps an error to
 * its exit code in one place, commands/run.ts.
 */
export const EXIT = {
  ok: 0,
  /** `gates check`: a gate failed or the sample ratio mismatched. */
  gateFailed: 1,
  /** Usage or input error: bad flag, unreadable file, malformed row. */
  usage: 2,
  /** The server could not be reached or answered with an error. */
  server: 3,
  /** `gates check`: a gate is inconclusive and --allow-inconclusive was not given. */
  inconclusive: 4,
  /** Interrupted by Ctrl-C (SIGINT, or a cancelled prompt): 128 + SIGINT, as shells report it. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
