/**
 * Fast checks of the count fields of offline data: no regex, no allocation per field.
 */

const ZERO = 48;
const NINE = 57;
const DOT = 46;
const MAX_DIGITS = 15; // below 2^53: every such integer is exact

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

/** A non-negative decimal ("12", "12.5"), or -1 when it is not one (no sign, exponent or spaces). */
export function parseNonNegativeDecimal(text: string): number {
  const integer = parseCount(text);
  if (integer >= 0) return integer;
  let dots = 0;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === DOT) dots++;
    else if (code >= ZERO && code <= NINE) digits++;
    else return -1;
  }
  if (dots !== 1 || digits === 0) return -1;
  return Number(text);
}

/** Why a count field is rejected, for the error message. */
export function describeBadCount(key: string, text: string, decimal: boolean): string {
  const shown = JSON.stringify(text);
  if (text.trim() === '') return `${key} is empty; expected a ${decimal ? 'non-negative number' : 'whole number'}`;
  if (text.trim().startsWith('-')) return `${key} must not be negative (got ${shown})`;
  return decimal
    ? `${key} must be a non-negative number such as 12 or 12.5 (got ${shown})`
    : `${key} must be a non-negative whole number (got ${shown})`;
}

/** The count keys that may hold fractions (durations); all others are whole numbers. */
export const DECIMAL_COUNT_KEYS: ReadonlySet<string> = new Set(['session_seconds']);
