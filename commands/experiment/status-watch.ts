/** `experiment status --watch [--interval S]`: the flags (light: loaded at every CLI start for help). */
import { InvalidArgumentError, type Command } from 'commander';

export interface WatchFlags {
  watch?: boolean;
  interval?: number;
}

/** The shortest refresh: the status and the analysis are two requests per refresh. */
export const MIN_WATCH_INTERVAL_SECONDS = 0.1;
export const DEFAULT_WATCH_INTERVAL_SECONDS = 5;

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
    .option('--interval <seconds>', `seconds between refreshes with --watch (default ${DEFAULT_WATCH_INTERVAL_SECONDS})`, parseInterval);
}
