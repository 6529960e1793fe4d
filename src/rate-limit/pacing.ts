/**
 * A client that repeats requests (`experiment status --watch`) paced by the limits it is
 * subject to: an interval the spec's windows allow indefinitely, stretched further when the
 * server's `X-RateLimit-*` headers say the window's remaining requests would run out before
 * it resets, and a server's `Retry-After` read in either of its forms. Pure.
 */
import type { WindowLimit } from './policy.js';

/** The window a response's `X-RateLimit-*` headers describe (the service reports the tightest). */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** When the window resets, epoch seconds. */
  resetAtSeconds: number;
}

type Headers = Record<string, string | string[] | number | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined ? undefined : String(text).trim();
}

/**
 * `X-RateLimit-Limit`, `-Remaining` and `-Reset` (epoch seconds, as the service sends it, or a
 * date, as Mastodon does); undefined when any is absent or malformed.
 */
export function readRateLimitHeaders(headers: Headers): RateLimitState | undefined {
  const limit = Number(header(headers, 'x-ratelimit-limit'));
  const remaining = Number(header(headers, 'x-ratelimit-remaining'));
  const reset = header(headers, 'x-ratelimit-reset');
  if (!Number.isInteger(limit) || !Number.isInteger(remaining) || remaining < 0 || reset === undefined || reset === '') return undefined;
  const resetAtSeconds = /^\d+(\.\d+)?$/.test(reset) ? Number(reset) : Date.parse(reset) / 1000;
  if (!Number.isFinite(resetAtSeconds)) return undefined;
  return { limit, remaining, resetAtSeconds };
}

/** `Retry-After` in seconds (delay-seconds, or an HTTP date relative to `nowMs`); undefined when absent or malformed. */
export function readRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - nowMs) / 1000)) : undefined;
}

/**
 * The shortest interval, in whole seconds, at which refreshes of `requestsPerRefresh` requests
 * stay within every one of `windows` for as long as they run, leaving `spare` (a fraction) of
 * each window to other calls of the same caller.
 */
export function sustainableInterval(windows: readonly WindowLimit[], requestsPerRefresh: number, spare = 0.1): number {
  const needed = windows.map((w) => (w.seconds * requestsPerRefresh) / (w.max * (1 - spare)));
  return Math.ceil(Math.max(0, ...needed));
}

/**
 * Seconds to wait before the next refresh: `intervalSeconds`, or longer when at that pace the
 * window's remaining requests would run out before it resets (then they are spread evenly
 * over what is left of it; none left: until it resets).
 */
export function pacedDelay(intervalSeconds: number, state: RateLimitState | undefined, requestsPerRefresh: number, nowMs: number): number {
  if (state === undefined) return intervalSeconds;
  const untilReset = Math.max(0, state.resetAtSeconds - nowMs / 1000);
  const refreshesLeft = Math.floor(state.remaining / requestsPerRefresh);
  // None left: until the reset, and a second more for a clock a little apart from the server's.
  const spread = refreshesLeft === 0 ? untilReset + 1 : untilReset / refreshesLeft;
  return Math.max(intervalSeconds, Math.ceil(spread * 10) / 10);
}
