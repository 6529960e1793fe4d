/**
 * When a client event can be true (decisions.md: "Events count only when they can be
 * true"). Pure: the service hands in what the database knows. An event that breaks a rule
 * is still stored, with the reason, and counted; it just never counts in a metric.
 *
 * - Its client `timestamp`, if any, lies within [receipt − 24 h, receipt + 5 min]:
 *   clocks drift and offline clients send late, but not by days or into the future.
 *   Outside it is refused, not clamped: a clamped time would be a made-up one.
 * - A click (and a view) claims one impression of that post served to that user before
 *   the event arrived; an impression takes at most one click and one view.
 * - A session has one start and one end, the end at or after the start and at most
 *   12 h later; the event that would break this (whichever arrives second) is refused.
 */

export const MAX_FUTURE_SKEW_MS = 5 * 60_000;
export const MAX_PAST_SKEW_MS = 24 * 3_600_000;
export const MAX_SESSION_MS = 12 * 3_600_000;

export const REJECT_REASONS = [
  'timestamp_out_of_window',
  'no_impression',
  'duplicate_click',
  'duplicate_view',
  'duplicate_session_start',
  'duplicate_session_end',
  'session_ends_before_start',
  'session_too_long',
] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

/** Refuses a client time more than 5 min ahead of or 24 h behind the receipt time. */
export function timestampVerdict(occurredAtMs: number, receivedAtMs: number): RejectReason | undefined {
  if (occurredAtMs > receivedAtMs + MAX_FUTURE_SKEW_MS || occurredAtMs < receivedAtMs - MAX_PAST_SKEW_MS) return 'timestamp_out_of_window';
  return undefined;
}

/** What the store knows of one session: its accepted start and end times (client clock), if any. */
export interface SessionBounds {
  startMs: number | null;
  endMs: number | null;
}

/** Whether a session_start/session_end at `atMs` may join the session as it stands. */
export function sessionVerdict(type: 'session_start' | 'session_end', atMs: number, bounds: SessionBounds): RejectReason | undefined {
  const start = type === 'session_start' ? atMs : bounds.startMs;
  const end = type === 'session_end' ? atMs : bounds.endMs;
  if (type === 'session_start' && bounds.startMs !== null) return 'duplicate_session_start';
  if (type === 'session_end' && bounds.endMs !== null) return 'duplicate_session_end';
  if (start === null || end === null) return undefined;
  if (end < start) return 'session_ends_before_start';
  if (end - start > MAX_SESSION_MS) return 'session_too_long';
  return undefined;
}

/** The reason an event claiming an impression is refused when no unclaimed one is left. */
export function noImpressionVerdict(type: 'click' | 'view', anyImpression: boolean): RejectReason {
  if (!anyImpression) return 'no_impression';
  return type === 'click' ? 'duplicate_click' : 'duplicate_view';
}
