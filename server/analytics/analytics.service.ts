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
 * judged in batch order against what is stored plus what the batch accepted before them.
 */
import type { Insertable, Kysely } from 'kysely';
import { ValidationError } from '../../src/errors.js';
import type { Database } from '../db/database.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { AnalyticsEvent, EventBatchResult } from './analytics.schema.js';
import { findClaimableImpressions, findSessionEvents, insertEvents } from './analytics.repository.js';
import type { AnalyticsEventsTable } from './analytics.tables.js';
import { judgeEvents, type EventToJudge, type RejectReason, type StoredSessionEvent } from '../../src/experiments/event-rules.js';

const NEEDS_POST = new Set(['click', 'view']);
const NEEDS_SESSION = new Set(['session_start', 'session_end']);

type Row = Insertable<AnalyticsEventsTable> & { type: string; rejected_reason: RejectReason | null };

export class AnalyticsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly metrics: ServiceMetrics,
    private readonly now: () => number = Date.now,
  ) {}

  /** Validates the batch, judges each event, stores them all atomically; returns the verdicts. */
  async record(events: readonly AnalyticsEvent[]): Promise<EventBatchResult> {
    events.forEach((event, i) => checkEvent(event, i));
    const receivedAt = this.now();
    const judged: EventToJudge[] = events.map((event) => ({
      type: event.type,
      userId: event.user_id,
      postId: event.post_id,
      sessionId: event.session_id,
      occurredAtMs: event.timestamp === undefined ? receivedAt : Date.parse(event.timestamp),
    }));
    // Judged inside the storing transaction, so two batches cannot both claim one impression.
    const rows = await this.db.transaction().execute(async (trx) => {
      const verdicts = judgeEvents(judged, receivedAt, ...(await knownState(trx, judged, receivedAt)));
      const rows: Row[] = judged.map((event, i) => ({
        type: event.type,
        user_id: event.userId,
        post_id: event.postId ?? null,
        session_id: event.sessionId ?? null,
        occurred_at_ms: event.occurredAtMs,
        received_at_ms: receivedAt,
        impression_id: verdicts[i]?.impressionId ?? null,
        rejected_reason: verdicts[i]?.reason ?? null,
      }));
      await insertEvents(trx, rows);
      return rows;
    });
    // Counted once committed: the counters never show an event the store does not hold.
    for (const row of rows) {
      if (row.rejected_reason === null) this.metrics.analyticsEventsAccepted.inc({ type: row.type });
      else this.metrics.analyticsEventsRejected.inc({ type: row.type, reason: row.rejected_reason });
    }
    return summarise(rows);
  }
}

/** The impressions and accepted session events the batch's events may meet (two queries, whatever the batch). */
async function knownState(db: Kysely<Database>, events: readonly EventToJudge[], receivedAt: number) {
  const distinct = (values: (string | undefined)[]) => [...new Set(values.filter((v): v is string => v !== undefined))];
  const claims = events.filter((e) => e.type === 'click' || e.type === 'view');
  const sessions = events.filter((e) => e.type === 'session_start' || e.type === 'session_end');
  const impressions = await findClaimableImpressions(
    db,
    distinct(claims.map((e) => e.userId)),
    distinct(claims.map((e) => e.postId)),
    receivedAt,
  );
  const stored = await findSessionEvents(db, distinct(sessions.map((e) => e.userId)), distinct(sessions.map((e) => e.sessionId)));
  return [
    impressions.map((row) => ({
      id: row.id,
      userId: row.user_id,
      postId: row.post_id,
      clickClaimed: Number(row.click_claimed) === 1,
      viewClaimed: Number(row.view_claimed) === 1,
    })),
    stored.map((row): StoredSessionEvent => ({
      userId: row.user_id,
      sessionId: row.session_id,
      type: row.type as StoredSessionEvent['type'],
      occurredAtMs: Number(row.occurred_at_ms),
    })),
  ] as const;
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

/** Shape rules beyond the schema (who may report each event is the route's access rule). */
function checkEvent(event: AnalyticsEvent, i: number): void {
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
