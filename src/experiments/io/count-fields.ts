/**
 * Fast checks of the count fields of offline data: no regex, no allocation per field;
 * and the rules that tie one user's counts together (what no real user can have).
 */
import { COUNT_KEYS, type CountKey } from '../metrics.js';

const ZERO = 48;
const NINE = 57;
const DOT = 46;
const MAX_DIGITS = 15; // below 2^53: every such integer is exact

/** The largest count (and whole part of session_seconds) offline data may hold: 15 digits. */
export const MAX_COUNT = 10 ** MAX_DIGITS - 1;

/** A non-negative integer written as plain digits ("0", "42"), or -1 when it is not one. */
export function parseCount(text: string): number {
  const length = text.length;
  if (length === 0 || length > MAX_DIGITS) return -1;
  let value = 0;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code < ZERO || code > NINE) return -1;
    value = value * 10 + (code - ZERO);
  }
  return value;
}

/**
 * A non-negative decimal ("12", "12.5") with at most 15 digits before the point, or -1 when
 * it is not one (no sign, exponent or spaces; longer whole parts would overflow the sums).
 */
export function parseNonNegativeDecimal(text: string): number {
  const integer = parseCount(text);
  if (integer >= 0) return integer;
  let dots = 0;
  let digits = 0;
  let wholeDigits = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === DOT) dots++;
    else if (code >= ZERO && code <= NINE) {
      digits++;
      if (dots === 0) wholeDigits++;
    } else return -1;
  }
  if (dots !== 1 || digits === 0 || wholeDigits > MAX_DIGITS) return -1;
  return Number(text);
}

/** Why a count field is rejected, for the error message. */
export function describeBadCount(key: string, text: string, decimal: boolean): string {
  const shown = JSON.stringify(text);
  if (text.trim() === '') return `${key} is empty; expected a ${decimal ? 'non-negative number' : 'whole number'}`;
  if (text.trim().startsWith('-')) return `${key} must not be negative (got ${shown})`;
  const number = Number(text);
  if (/^[0-9]+(\.[0-9]*)?$/.test(text.trim()) && number > MAX_COUNT) return `${key} is too large (got ${shown}; at most ${MAX_COUNT})`;
  return decimal
    ? `${key} must be a non-negative number such as 12 or 12.5 (got ${shown})`
    : `${key} must be a non-negative whole number (got ${shown})`;
}

/** The count keys that may hold fractions (durations); all others are whole numbers. */
export const DECIMAL_COUNT_KEYS: ReadonlySet<string> = new Set(['session_seconds']);

/** A combination of one user's counts that cannot happen: the count at fault and why. */
export interface CountIssue {
  key: CountKey;
  message: string;
}

const AT = (key: CountKey): number => COUNT_KEYS.indexOf(key);
const IMPRESSIONS = AT('impressions');
const CLICKS = AT('clicks');
const SESSIONS = AT('sessions');
const SESSION_SECONDS = AT('session_seconds');
const BOUNCES = AT('bounces');

/**
 * The first impossible combination in one user's counts (COUNT_KEYS order), or undefined:
 * clicks > impressions (a click is on a served recommendation, at most one per impression),
 * bounces > sessions (a bounce is a session without a click), session_seconds > 0 with no
 * session (time is only counted inside sessions). Interactions and feedback are not tied to
 * impressions (a user can favourite a post the service never showed), nor clicks to sessions.
 */
export function findImpossibleCounts(row: ArrayLike<number>): CountIssue | undefined {
  const clicks = row[CLICKS] as number;
  const impressions = row[IMPRESSIONS] as number;
  const sessions = row[SESSIONS] as number;
  const bounces = row[BOUNCES] as number;
  const seconds = row[SESSION_SECONDS] as number;
  if (clicks <= impressions && bounces <= sessions && (sessions > 0 || seconds === 0)) return undefined;
  if (clicks > impressions)
    return { key: 'clicks', message: `clicks (${clicks}) exceed impressions (${impressions}): a click needs an impression of the post` };
  if (bounces > sessions)
    return { key: 'bounces', message: `bounces (${bounces}) exceed sessions (${sessions}): a bounce is a session without a click` };
  return { key: 'session_seconds', message: `session_seconds is ${seconds} with 0 sessions: time is only counted inside sessions` };
}
