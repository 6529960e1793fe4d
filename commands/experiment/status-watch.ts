/** `experiment status --watch [--interval S]`: the flags (light: loaded at every CLI start for help). */
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_RATE_LIMIT_POLICY } from '../../src/rate-limit/policy.js';
import { sustainableInterval } from '../../src/rate-limit/pacing.js';

export interface WatchFlags {
  watch?: boolean;
  interval?: number;
}

/** Each refresh asks for the status and the analysis: two requests of the analytics group. */
export const REQUESTS_PER_REFRESH = 2;
/** The shortest refresh asked for with --interval (the server's limits may stretch it: status-watch.action.ts). */
export const MIN_WATCH_INTERVAL_SECONDS = 0.1;
/**
 * The default refresh runs within the spec's analytics limits (20 a minute and 200 an hour per
 * token) indefinitely, leaving a tenth of each to other commands: 40 s. At 5 s it made 24
 * requests a minute and was refused within the first minute.
 */
export const DEFAULT_WATCH_INTERVAL_SECONDS = sustainableInterval(DEFAULT_RATE_LIMIT_POLICY.groups.analytics, REQUESTS_PER_REFRESH);

/** `--interval`: seconds between refreshes, at least MIN_WATCH_INTERVAL_SECONDS. */
export function parseInterval(text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < MIN_WATCH_INTERVAL_SECONDS)
    throw new InvalidArgumentError(`expected a number of seconds, at least ${MIN_WATCH_INTERVAL_SECONDS}`);
  return value;
}

/** Adds --watch and --interval. */
export function addWatchOptions(command: Command): Command {
  return command
    .option('-w, --watch', 'refresh until Ctrl-C, with sparklines of users per variant and the primary lift over recent refreshes')
    .option(
      '--interval <seconds>',
      `seconds between refreshes with --watch (default ${DEFAULT_WATCH_INTERVAL_SECONDS}; longer when the server's rate limit requires)`,
      parseInterval,
    );
}
