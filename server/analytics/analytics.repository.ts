/** SQL for client analytics events. */
import { sql, type Insertable, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { AnalyticsEventsTable } from './analytics.tables.js';
import type { SessionBounds } from './event-rules.js';

/** Stores a batch of events (in the caller's transaction). */
export async function insertEvents(db: Kysely<Database>, rows: Insertable<AnalyticsEventsTable>[]): Promise<void> {
  // 8 columns per row: 500 rows stay well under SQLite's bound-parameter limit.
  for (let i = 0; i < rows.length; i += 500) {
    await db.insertInto('analytics_events').values(rows.slice(i, i + 500)).execute();
  }
}

/**
 * Up to `limit` impressions of the post served to the user by `servedBy` that no stored
 * event of `type` has claimed yet, newest first.
 */
export async function unclaimedImpressionIds(
  db: Kysely<Database>,
  type: 'click' | 'view',
  userId: string,
  postId: string,
  servedBy: number,
  limit: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom('experiment_impressions as i')
    .select('i.id')
    .where('i.user_id', '=', userId)
    .where('i.post_id', '=', postId)
    .where('i.served_at_ms', '<=', servedBy)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('analytics_events as e').select(sql`1`.as('one')).whereRef('e.impression_id', '=', 'i.id').where('e.type', '=', type))),
    )
    .orderBy('i.served_at_ms', 'desc')
    .orderBy('i.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** Whether the post was ever served to the user by `servedBy`. */
export async function hasImpression(db: Kysely<Database>, userId: string, postId: string, servedBy: number): Promise<boolean> {
  const row = await db
    .selectFrom('experiment_impressions')
    .select('id')
    .where('user_id', '=', userId)
    .where('post_id', '=', postId)
    .where('served_at_ms', '<=', servedBy)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The accepted start and end (client times) stored for the user's session. */
export async function findSessionBounds(db: Kysely<Database>, userId: string, sessionId: string): Promise<SessionBounds> {
  const rows = await db
    .selectFrom('analytics_events')
    .select(['type', 'occurred_at_ms'])
    .where('user_id', '=', userId)
    .where('session_id', '=', sessionId)
    .where('type', 'in', ['session_start', 'session_end'])
    .where('rejected_reason', 'is', null)
    .execute();
  const at = (type: string) => rows.find((row) => row.type === type)?.occurred_at_ms ?? null;
  return { startMs: at('session_start'), endMs: at('session_end') };
}
