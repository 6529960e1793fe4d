/**
 * Client events. A batch is checked whole before anything is stored, and stored in one
 * transaction: a bad event (400 naming `events[i].field`) or a foreign user (403) leaves
 * nothing behind. Who may post: a token bound to a user (scope `write`) for that user's
 * own events; an `admin` token for anyone's (e.g. a backend relaying its clients).
 */
import type { Kysely } from 'kysely';
import type { AuthenticatedIdentity } from '../../src/auth/identity.js';
import { ForbiddenError, ValidationError } from '../../src/errors.js';
import type { Database } from '../db/database.js';
import type { AnalyticsEvent } from './analytics.schema.js';
import { insertEvents } from './analytics.repository.js';

const NEEDS_POST = new Set(['click', 'view']);
const NEEDS_SESSION = new Set(['session_start', 'session_end']);

export class AnalyticsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Validates and stores the batch atomically; returns how many were stored. */
  async record(identity: AuthenticatedIdentity, events: readonly AnalyticsEvent[]): Promise<number> {
    events.forEach((event, i) => checkEvent(identity, event, i));
    const receivedAt = this.now();
    const rows = events.map((event) => ({
      type: event.type,
      user_id: event.user_id,
      post_id: event.post_id ?? null,
      session_id: event.session_id ?? null,
      occurred_at_ms: event.timestamp === undefined ? receivedAt : Date.parse(event.timestamp),
      received_at_ms: receivedAt,
    }));
    await this.db.transaction().execute((trx) => insertEvents(trx, rows));
    return rows.length;
  }
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
