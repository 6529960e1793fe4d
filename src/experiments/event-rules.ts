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

/** An event as judged: its kind, who and what it is about, and its (client) time. */
export interface EventToJudge {
  type: 'click' | 'view' | 'session_start' | 'session_end';
  userId: string;
  postId: string | undefined;
  sessionId: string | undefined;
  occurredAtMs: number;
}

/** An impression served before the batch arrived, and whether a click or view claimed it already. */
export interface ClaimableImpression {
  id: number;
  userId: string;
  postId: string;
  clickClaimed: boolean;
  viewClaimed: boolean;
}

/** An accepted session start or end already stored. */
export interface StoredSessionEvent {
  userId: string;
  sessionId: string;
  type: 'session_start' | 'session_end';
  occurredAtMs: number;
}

/** An event's verdict: accepted (reason null, with the impression a click or view claimed) or refused with a reason. */
export interface Verdict {
  reason: RejectReason | null;
  impressionId: number | null;
}

const pairKey = (a: string, b: string) => `${a}\u0000${b}`;

/**
 * Judges a batch in order against what is stored (impressions newest first, accepted
 * session events) and against the batch's own earlier accepted events: a click (view)
 * claims the newest impression of that post served to that user that no click (view)
 * claimed yet.
 */
export function judgeEvents(
  events: readonly EventToJudge[],
  receivedAtMs: number,
  impressions: readonly ClaimableImpression[],
  sessionEvents: readonly StoredSessionEvent[],
): Verdict[] {
  const impressionsByPair = new Map<string, ClaimableImpression[]>();
  for (const impression of impressions) {
    const key = pairKey(impression.userId, impression.postId);
    const list = impressionsByPair.get(key);
    if (list) list.push({ ...impression });
    else impressionsByPair.set(key, [{ ...impression }]);
  }
  const sessions = new Map<string, SessionBounds>();
  for (const event of sessionEvents) {
    const key = pairKey(event.userId, event.sessionId);
    const bounds = sessions.get(key) ?? { startMs: null, endMs: null };
    if (event.type === 'session_start') bounds.startMs = event.occurredAtMs;
    else bounds.endMs = event.occurredAtMs;
    sessions.set(key, bounds);
  }
  return events.map((event): Verdict => {
    const late = timestampVerdict(event.occurredAtMs, receivedAtMs);
    if (late) return { reason: late, impressionId: null };
    if ((event.type === 'click' || event.type === 'view') && event.postId !== undefined) {
      const served = impressionsByPair.get(pairKey(event.userId, event.postId)) ?? [];
      const claimedFlag = event.type === 'click' ? 'clickClaimed' : 'viewClaimed';
      const free = served.find((impression) => !impression[claimedFlag]);
      if (!free)
        return {
          reason: served.length === 0 ? 'no_impression' : event.type === 'click' ? 'duplicate_click' : 'duplicate_view',
          impressionId: null,
        };
      free[claimedFlag] = true;
      return { reason: null, impressionId: free.id };
    }
    if ((event.type === 'session_start' || event.type === 'session_end') && event.sessionId !== undefined) {
      const key = pairKey(event.userId, event.sessionId);
      const bounds = sessions.get(key) ?? { startMs: null, endMs: null };
      const reason = sessionVerdict(event.type, event.occurredAtMs, bounds) ?? null;
      if (reason === null)
        sessions.set(
          key,
          event.type === 'session_start' ? { ...bounds, startMs: event.occurredAtMs } : { ...bounds, endMs: event.occurredAtMs },
        );
      return { reason, impressionId: null };
    }
    return { reason: null, impressionId: null };
  });
}
