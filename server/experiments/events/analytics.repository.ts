/**
 * SQL for client analytics events (rows of users at `full`) and the kept counts and open
 * sessions of users at `limited`. User ids are pseudonyms.
 */
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { Database } from '../../platform/db/database.js';
import type { AnalyticsEventsTable, ExperimentOpenSessionsTable } from './analytics.tables.js';

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

/** A `limited` user's counts in an experiment that counts what happens at the receive time. */
export interface EnrolledCountsRow {
  experiment_id: number;
  impressions: number;
  clicks: number;
}

/** The kept counts of the user (a pseudonym) in each experiment they are enrolled in and that is ACTIVE at `atMs`. */
export async function enrolledCounts(db: Kysely<Database>, pseudonym: string, atMs: number): Promise<EnrolledCountsRow[]> {
  const result = await sql<EnrolledCountsRow>`
    SELECT c.experiment_id, c.impressions, c.clicks FROM experiment_user_counts c
      JOIN experiment_assignments a ON a.experiment_id = c.experiment_id AND a.user_id = c.user_id
    WHERE c.user_id = ${pseudonym} AND a.assigned_at_ms <= ${atMs}
      AND EXISTS (SELECT 1 FROM experiment_active_periods p WHERE p.experiment_id = c.experiment_id
        AND p.started_at_ms <= ${atMs} AND (p.ended_at_ms IS NULL OR ${atMs} < p.ended_at_ms))
    ORDER BY c.experiment_id`.execute(db);
  return result.rows.map((row) => ({ ...row, impressions: Number(row.impressions), clicks: Number(row.clicks) }));
}

/** Adds to a user's kept counts in one experiment. */
export async function addCounts(
  db: Kysely<Database>,
  experimentId: number,
  pseudonym: string,
  deltas: Partial<Record<'clicks' | 'sessions' | 'session_ms' | 'bounces', number>>,
): Promise<void> {
  const entries = Object.entries(deltas).filter(([, amount]) => amount !== 0);
  if (entries.length === 0) return;
  await db
    .updateTable('experiment_user_counts')
    .set((eb) => Object.fromEntries(entries.map(([column, amount]) => [column, eb(eb.ref(column as 'clicks'), '+', amount)])))
    .where('experiment_id', '=', experimentId)
    .where('user_id', '=', pseudonym)
    .execute();
}

export type OpenSessionRow = Selectable<ExperimentOpenSessionsTable>;

/** A `limited` user's session not yet complete, if any. */
export async function findOpenSession(
  db: Kysely<Database>,
  experimentId: number,
  pseudonym: string,
  sessionId: string,
): Promise<OpenSessionRow | undefined> {
  return db
    .selectFrom('experiment_open_sessions')
    .selectAll()
    .where('experiment_id', '=', experimentId)
    .where('user_id', '=', pseudonym)
    .where('session_id', '=', sessionId)
    .executeTakeFirst();
}

/** Stores a session's state so far (inserted or replaced). */
export async function saveOpenSession(db: Kysely<Database>, row: OpenSessionRow): Promise<void> {
  await db
    .insertInto('experiment_open_sessions')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['experiment_id', 'user_id', 'session_id']).doUpdateSet({
        started_ms: row.started_ms,
        ended_ms: row.ended_ms,
        clicks: row.clicks,
        updated_at_ms: row.updated_at_ms,
      }),
    )
    .execute();
}

/** Drops a session folded into the counts. */
export async function deleteOpenSession(db: Kysely<Database>, experimentId: number, pseudonym: string, sessionId: string): Promise<void> {
  await db
    .deleteFrom('experiment_open_sessions')
    .where('experiment_id', '=', experimentId)
    .where('user_id', '=', pseudonym)
    .where('session_id', '=', sessionId)
    .execute();
}
