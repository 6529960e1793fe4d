/**
 * Client events. A batch is checked whole before anything is stored, and stored in one
 * transaction: a malformed event (400 naming `events[i].field`) or a foreign user (403)
 * leaves nothing behind. Who may post: a token bound to a user (scope `write`) for that
 * user's own events; an `admin` token for anyone's (e.g. a backend relaying its clients).
 *
 * A well-formed event that cannot be true (event-rules.ts: no impression behind a click,
 * a timestamp outside the skew window, an over-long session...) is not an error: it is
 * stored with its reason, reported in the result and counted in
 * `service_analytics_events_rejected_total`, and never counts in an experiment. Events are
 * judged in batch order against what is stored plus what the batch accepted before them,
 * inside the storing transaction, so concurrent batches cannot claim one impression twice.
 */
import type { Insertable, Kysely } from 'kysely';
import type { AuthenticatedIdentity } from '../../src/auth/identity.js';
import { ForbiddenError, ValidationError } from '../../src/errors.js';
import type { Database } from '../db/database.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { AnalyticsEvent, EventBatchResult } from './analytics.schema.js';
import { findSessionBounds, hasImpression, insertEvents, unclaimedImpressionIds } from './analytics.repository.js';
import type { AnalyticsEventsTable } from './analytics.tables.js';
import { noImpressionVerdict, sessionVerdict, timestampVerdict, type RejectReason, type SessionBounds } from './event-rules.js';

const NEEDS_POST = new Set(['click', 'view']);
const NEEDS_SESSION = new Set(['session_start', 'session_end']);

type Row = Insertable<AnalyticsEventsTable> & { rejected_reason: RejectReason | null };

export class AnalyticsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly metrics: ServiceMetrics,
    private readonly now: () => number = Date.now,
  ) {}

  /** Validates the batch, judges each event, stores them all atomically; returns the verdicts. */
  async record(identity: AuthenticatedIdentity, events: readonly AnalyticsEvent[]): Promise<EventBatchResult> {
    events.forEach((event, i) => checkEvent(identity, event, i));
    const receivedAt = this.now();
    const rows = await this.db.transaction().execute(async (trx) => {
      const judged = await new BatchJudge(trx, receivedAt).judge(events);
      await insertEvents(trx, judged);
      return judged;
    });
    // Counted once committed: the counter never shows an event the store does not hold.
    for (const row of rows) {
      if (row.rejected_reason === null) this.metrics.analyticsEventsAccepted.inc({ type: row.type });
      else this.metrics.analyticsEventsRejected.inc({ type: row.type, reason: row.rejected_reason });
    }
    return summarise(rows);
  }
}

/** Judges one batch against the store and the batch's own earlier events. */
class BatchJudge {
  /** Impressions claimed by this batch, per `type\0user\0post`. */
  private readonly claimed = new Map<string, Set<number>>();
  /** Session bounds as they stand after this batch's accepted events, per `user\0session`. */
  private readonly sessions = new Map<string, SessionBounds>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly receivedAt: number,
  ) {}

  async judge(events: readonly AnalyticsEvent[]): Promise<Row[]> {
    const rows: Row[] = [];
    for (const event of events) {
      const occurredAt = event.timestamp === undefined ? this.receivedAt : Date.parse(event.timestamp);
      const row: Row = {
        type: event.type,
        user_id: event.user_id,
        post_id: event.post_id ?? null,
        session_id: event.session_id ?? null,
        occurred_at_ms: occurredAt,
        received_at_ms: this.receivedAt,
        impression_id: null,
        rejected_reason: timestampVerdict(occurredAt, this.receivedAt) ?? null,
      };
      if (row.rejected_reason === null) await this.judgeByType(event, row);
      rows.push(row);
    }
    return rows;
  }

  private async judgeByType(event: AnalyticsEvent, row: Row): Promise<void> {
    if ((event.type === 'click' || event.type === 'view') && event.post_id !== undefined) {
      const impression = await this.claimImpression(event.type, event.user_id, event.post_id);
      if (typeof impression === 'number') row.impression_id = impression;
      else row.rejected_reason = impression;
    } else if ((event.type === 'session_start' || event.type === 'session_end') && event.session_id !== undefined) {
      row.rejected_reason = (await this.joinSession(event.type, event.user_id, event.session_id, row.occurred_at_ms)) ?? null;
    }
  }

  /** The newest impression of the post served to the user that no click (view) claimed yet. */
  private async claimImpression(type: 'click' | 'view', userId: string, postId: string): Promise<number | RejectReason> {
    const key = `${type}\u0000${userId}\u0000${postId}`;
    const claimed = this.claimed.get(key) ?? new Set<number>();
    const free = await unclaimedImpressionIds(this.db, type, userId, postId, this.receivedAt, claimed.size + 1);
    const id = free.find((candidate) => !claimed.has(candidate));
    if (id === undefined) {
      return noImpressionVerdict(type, claimed.size > 0 || (await hasImpression(this.db, userId, postId, this.receivedAt)));
    }
    claimed.add(id);
    this.claimed.set(key, claimed);
    return id;
  }

  private async joinSession(type: 'session_start' | 'session_end', userId: string, sessionId: string, atMs: number): Promise<RejectReason | undefined> {
    const key = `${userId}\u0000${sessionId}`;
    const bounds = this.sessions.get(key) ?? (await findSessionBounds(this.db, userId, sessionId));
    const verdict = sessionVerdict(type, atMs, bounds);
    this.sessions.set(key, verdict !== undefined ? bounds : type === 'session_start' ? { ...bounds, startMs: atMs } : { ...bounds, endMs: atMs });
    return verdict;
  }
}

function summarise(rows: readonly Row[]): EventBatchResult {
  const byReason: Partial<Record<RejectReason, number>> = {};
  const rejections: EventBatchResult['rejections'] = [];
  rows.forEach((row, index) => {
    if (row.rejected_reason === null) return;
    byReason[row.rejected_reason] = (byReason[row.rejected_reason] ?? 0) + 1;
    rejections.push({ index, reason: row.rejected_reason });
  });
  return { accepted: rows.length - rejections.length, rejected: rejections.length, rejected_by_reason: byReason, rejections };
}

function checkEvent(identity: AuthenticatedIdentity, event: AnalyticsEvent, i: number): void {
  if (!identity.scopes.has('admin') && identity.userId !== event.user_id) {
    throw new ForbiddenError(`events[${i}].user_id: this token may only report events of its own user`);
  }
  if (NEEDS_POST.has(event.type) && event.post_id === undefined) {
    throw new ValidationError(`events[${i}].post_id is required for a ${event.type} event`, `events[${i}].post_id`);
  }
  if (NEEDS_SESSION.has(event.type) && event.session_id === undefined) {
    throw new ValidationError(`events[${i}].session_id is required for a ${event.type} event`, `events[${i}].session_id`);
  }
  if (event.timestamp !== undefined && Number.isNaN(Date.parse(event.timestamp))) {
    throw new ValidationError(`events[${i}].timestamp is not a valid ISO 8601 date-time`, `events[${i}].timestamp`);
  }
}
