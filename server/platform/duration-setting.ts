/**
 * Duration settings read from the environment, each with its bounds, so a value that would
 * misbehave is refused at start (exit 2, one line naming the setting and its bounds) instead
 * of misbehaving later: Node keeps a timer's delay in 32 bits, and a longer one (about 24.8
 * days and up) fires after 1 ms, so an agent scheduled that far ahead would run in a loop.
 */
import { InputError } from '../../src/errors.js';

/** The longest delay a Node timer holds: 2^31 − 1 ms, about 24.8 days. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The longest delay, in whole seconds, that fits a Node timer. */
export const MAX_TIMER_SECONDS = Math.floor(MAX_TIMER_MS / 1000);

/**
 * The background agents run every 1 to 60 agent intervals (the retention agent every 60,
 * server/privacy/privacy.feature.ts), so the interval is bounded for the longest of them to
 * fit a timer: 60 × 35,791 s = 24.85 days. AgentRunner.register refuses any agent beyond it.
 */
export const AGENT_INTERVAL_MULTIPLE_MAX = 60;
export const AGENT_INTERVAL_MAX_SECONDS = Math.floor(MAX_TIMER_SECONDS / AGENT_INTERVAL_MULTIPLE_MAX);
/** Shortest accepted agent interval from the environment (tests pass shorter ones in-process). */
export const AGENT_INTERVAL_MIN_SECONDS = 0.01;

export interface DurationBounds {
  unit: 'milliseconds' | 'seconds';
  min: number;
  max: number;
  /** Decimals accepted (`0.5`); whole numbers only otherwise. */
  fractional?: boolean;
}

const show = (n: number): string => n.toLocaleString('en-US', { maximumFractionDigits: 3 });

/** A duration setting within its bounds, or `fallback` when unset or empty; InputError (exit 2) otherwise. */
export function parseDurationSetting(name: string, text: string | undefined, fallback: number, bounds: DurationBounds): number {
  if (text === undefined || text === '') return fallback;
  const pattern = bounds.fractional === true ? /^\d{1,15}(\.\d{1,6})?$/ : /^\d{1,15}$/;
  const value = Number(text);
  if (!pattern.test(text) || value < bounds.min || value > bounds.max) {
    const kind = bounds.fractional === true ? 'a number of' : 'a whole number of';
    throw new InputError(`${name} must be ${kind} ${bounds.unit} from ${show(bounds.min)} to ${show(bounds.max)}, got "${text}"`);
  }
  return value;
}
