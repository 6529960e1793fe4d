/**
 * When an interaction happened (decisions.md: "Interactions carry their time"). A writer may
 * say when (`created_at`, for history brought in later: an import, a client that was
 * offline); without it the interaction happened when it was received. Every decay
 * (affinities, interest vectors, experiment days) then uses that time. Refused, never
 * clamped beyond the clock skew, because a made-up time would weigh a signal wrongly:
 *
 * - more than INTERACTION_FUTURE_SKEW_MS ahead of the receipt (clocks disagree by
 *   seconds, not minutes); a time ahead within the skew is taken as the receipt time, so
 *   nothing stored is in the future;
 * - before EARLIEST_INTERACTION_MS (1990-01-01): no social network's history is older, and
 *   such a time is a mistake (seconds read as milliseconds, a two-digit year);
 * - more than the skew before its post was created: nobody favours a post before it exists.
 */
import { MAX_FUTURE_SKEW_MS } from '../experiments/event-rules.js';

/** How far ahead of the receipt a given time may be (the analytics events' skew: one clock rule). */
export const INTERACTION_FUTURE_SKEW_MS = MAX_FUTURE_SKEW_MS;

/** 1990-01-01T00:00:00Z: the earliest time an interaction may carry. */
export const EARLIEST_INTERACTION_MS = Date.UTC(1990, 0, 1);

/**
 * The time an interaction is stored with: `givenMs` (a parsed `created_at`) or, without one,
 * the receipt time; a given time ahead within the skew becomes the receipt time. Returns the
 * reason as a message when the time is refused.
 */
export function interactionTime(givenMs: number | undefined, receivedAtMs: number): { atMs: number } | { refused: string } {
  if (givenMs === undefined) return { atMs: receivedAtMs };
  if (!Number.isFinite(givenMs)) return { refused: 'not a date-time' };
  if (givenMs > receivedAtMs + INTERACTION_FUTURE_SKEW_MS) {
    return { refused: `in the future (more than ${INTERACTION_FUTURE_SKEW_MS / 60_000} minutes ahead of the server's clock)` };
  }
  if (givenMs < EARLIEST_INTERACTION_MS) return { refused: 'before 1990-01-01T00:00:00Z' };
  return { atMs: Math.min(givenMs, receivedAtMs) };
}

/** Why an interaction at `atMs` cannot be about a post created at `postCreatedAtMs`, if it cannot. */
export function beforePostProblem(atMs: number, postCreatedAtMs: number): string | undefined {
  if (atMs >= postCreatedAtMs - INTERACTION_FUTURE_SKEW_MS) return undefined;
  return `before its post was created (${new Date(postCreatedAtMs).toISOString()})`;
}
