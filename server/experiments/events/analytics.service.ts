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
 *
 * Tracking levels (issue 12): only events of users at `full` are stored as rows, under the
 * user's pseudonym; events of users at `limited` only move their kept experiment counts
 * (aggregate-events.ts); events of users at `none` are neither stored nor judged and are
 * reported as `not_stored`.
 */
import type { Insertable, Kysely } from 'kysely';
import { ValidationError } from '../../../src/errors.js';
import type { Database } from '../../platform/db/database.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import type { ServiceMetrics } from '../../platform/metrics/service-metrics.js';
import type { PrivacyPolicy } from '../../privacy/privacy-policy.types.js';
import { recordAggregated } from './aggregate-events.js';
import { UNWIRED_PRIVACY } from '../../privacy/privacy-policy.types.js';
import type { AnalyticsEvent, EventBatchResult } from './analytics.schema.js';
import { findClaimableImpressions, findSessionEvents, insertEvents } from './analytics.repository.js';
import type { AnalyticsEventsTable } from './analytics.tables.js';
import {
  judgeEvents,
  type EventToJudge,
  type RejectReason,
  type StoredSessionEvent,
  type Verdict,
} from '../../../src/experiments/event-rules.js';

const NEEDS_POST = new Set(['click', 'view']);
/** Attempts of a batch whose claim lost a race to a concurrent batch (PostgreSQL: see isUniqueViolation). */
const STORE_ATTEMPTS = 3;
const NEEDS_SESSION = new Set(['session_start', 'session_end']);

type Row = Insertable<AnalyticsEventsTable> & { type: string; rejected_reason: RejectReason | null };

/** How each event of a batch was handled: its verdict, or not stored (tracking level `none`). */
type Outcome = { type: string; reason: RejectReason | null } | 'not_stored';

export class AnalyticsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly metrics: ServiceMetrics,
    private readonly now: () => number = Date.now,
    private readonly privacy: Pick<PrivacyPolicy, 'allowanceFor' | 'pseudonym'> = UNWIRED_PRIVACY,
  ) {}

  /** Validates the batch, judges each event, stores what each user's level allows atomically; returns the verdicts. */
  async record(events: readonly AnalyticsEvent[]): Promise<EventBatchResult> {
    events.forEach((event, i) => checkEvent(event, i));
    const receivedAt = this.now();
    const rowsOf: number[] = [];
    const countsOf: number[] = [];
    const judged: EventToJudge[] = events.map((event, i) => {
      const allowance = this.privacy.allowanceFor(event.user_id);
      if (allowance.storeEventRows) rowsOf.push(i);
      else if (allowance.storeAggregateCounts) countsOf.push(i);
      return {
        type: event.type,
        userId: this.privacy.pseudonym(event.user_id),
        postId: event.post_id,
        sessionId: event.session_id,
        occurredAtMs: event.timestamp === undefined ? receivedAt : Date.parse(event.timestamp),
      };
    });
    const outcomes: Outcome[] = events.map(() => 'not_stored');
    // Judged inside the storing transaction, so two batches cannot both claim one impression:
    // on PostgreSQL the unique index refuses the later claim, and the batch is judged again.
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.storeJudged(judged, rowsOf, countsOf, receivedAt, outcomes);
        break;
      } catch (error) {
        if (attempt >= STORE_ATTEMPTS || !isUniqueViolation(error)) throw error;
      }
    }
    // Counted once committed: the counters never show an event the store does not hold.
    for (const outcome of outcomes) {
      if (outcome === 'not_stored') continue;
      if (outcome.reason === null) this.metrics.analyticsEventsAccepted.inc({ type: outcome.type });
      else this.metrics.analyticsEventsRejected.inc({ type: outcome.type, reason: outcome.reason });
    }
    return summarise(outcomes);
  }

  /** One transaction: judges the stored events against the database, stores rows and counts, fills `outcomes`. */
  private async storeJudged(
    judged: readonly EventToJudge[],
    rowsOf: readonly number[],
    countsOf: readonly number[],
    receivedAt: number,
    outcomes: Outcome[],
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const stored = rowsOf.map((i) => judged[i] as EventToJudge);
      const verdicts = judgeEvents(stored, receivedAt, ...(await knownState(trx, stored, receivedAt)));
      const rows: Row[] = stored.map((event, k) => ({
        type: event.type,
        user_id: event.userId,
        post_id: event.postId ?? null,
        session_id: event.sessionId ?? null,
        occurred_at_ms: event.occurredAtMs,
        received_at_ms: receivedAt,
        impression_id: verdicts[k]?.impressionId ?? null,
        rejected_reason: verdicts[k]?.reason ?? null,
      }));
      await insertEvents(trx, rows);
      const counted = await recordAggregated(
        trx,
        countsOf.map((i) => judged[i] as EventToJudge),
        receivedAt,
      );
      const place = (indexes: readonly number[], list: readonly (Verdict | undefined)[]) =>
        indexes.forEach((i, k) => (outcomes[i] = { type: judged[i]!.type, reason: list[k]?.reason ?? null }));
      place(rowsOf, verdicts);
      place(countsOf, counted);
    });
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

function summarise(outcomes: readonly Outcome[]): EventBatchResult {
  const byReason: Partial<Record<RejectReason, number>> = {};
  const rejections: EventBatchResult['rejections'] = [];
  let accepted = 0;
  let notStored = 0;
  outcomes.forEach((outcome, index) => {
    if (outcome === 'not_stored') notStored++;
    else if (outcome.reason === null) accepted++;
    else {
      byReason[outcome.reason] = (byReason[outcome.reason] ?? 0) + 1;
      rejections.push({ index, reason: outcome.reason });
    }
  });
  return { accepted, rejected: rejections.length, rejected_by_reason: byReason, rejections, not_stored: notStored };
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
