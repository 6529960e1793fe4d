/** SQL for client analytics events. */
import { sql, type Insertable, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { AnalyticsEventsTable } from './analytics.tables.js';

/** Stores a batch of events (in the caller's transaction). */
export async function insertEvents(db: Kysely<Database>, rows: Insertable<AnalyticsEventsTable>[]): Promise<void> {
  // 8 columns per row: 500 rows stay well under SQLite's bound-parameter limit.
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('analytics_events')
      .values(rows.slice(i, i + 500))
      .execute();
  }
}

/** An impression a click or view may claim, and whether one already has. */
export interface ClaimableImpressionRow {
  id: number;
  user_id: string;
  post_id: string;
  click_claimed: number;
  view_claimed: number;
}

/**
 * Impressions served by `servedBy` to any of `userIds` of any of `postIds` (a superset of the
 * pairs asked about; the caller keeps its pairs), newest first, with their claims so far.
 */
export async function findClaimableImpressions(
  db: Kysely<Database>,
  userIds: readonly string[],
  postIds: readonly string[],
  servedBy: number,
): Promise<ClaimableImpressionRow[]> {
  if (userIds.length === 0 || postIds.length === 0) return [];
  const claimedBy = (type: 'click' | 'view') =>
    sql<number>`(CASE WHEN EXISTS (SELECT 1 FROM analytics_events e WHERE e.impression_id = i.id AND e.type = ${type}) THEN 1 ELSE 0 END)`;
  return db
    .selectFrom('experiment_impressions as i')
    .select(['i.id', 'i.user_id', 'i.post_id', claimedBy('click').as('click_claimed'), claimedBy('view').as('view_claimed')])
    .where('i.user_id', 'in', userIds)
    .where('i.post_id', 'in', postIds)
    .where('i.served_at_ms', '<=', servedBy)
    .orderBy('i.served_at_ms', 'desc')
    .orderBy('i.id', 'desc')
    .execute();
}

export interface SessionEventRow {
  user_id: string;
  session_id: string;
  type: string;
  occurred_at_ms: number;
}

/** Accepted starts and ends stored for any of `userIds` with any of `sessionIds` (a superset of the pairs asked about). */
export async function findSessionEvents(
  db: Kysely<Database>,
  userIds: readonly string[],
  sessionIds: readonly string[],
): Promise<SessionEventRow[]> {
  if (userIds.length === 0 || sessionIds.length === 0) return [];
  const rows = await db
    .selectFrom('analytics_events')
    .select(['user_id', 'session_id', 'type', 'occurred_at_ms'])
    .where('user_id', 'in', userIds)
    .where('session_id', 'in', sessionIds)
    .where('type', 'in', ['session_start', 'session_end'])
    .where('rejected_reason', 'is', null)
    .execute();
  return rows.map((row) => ({ ...row, session_id: row.session_id as string }));
}
