/**
 * Events count only when they can be true: each analytics event gets a verdict.
 * `rejected_reason` is null for an accepted event, else why it cannot be true; an accepted
 * click or view names the impression it claimed in `impression_id`, and a unique index
 * lets an impression be claimed by one click and one view at most. A partial unique index
 * keeps one accepted start and one accepted end per session.
 *
 * Events stored before this migration are judged here by the same rules, with the numbers
 * frozen as they were decided (5 min ahead / 24 h behind receipt, sessions up to 12 h):
 * out-of-window timestamps are refused; the k-th click (view) of a user on a post claims
 * the k-th impression of that post served to that user, if it was served before the click
 * arrived (conservative: it can refuse a click a cleverer pairing would keep, never the
 * reverse); of several starts (ends) of one session the first is kept; an end before its
 * start or more than 12 h after it is refused. Portable SQL (SQLite and PostgreSQL).
 * Frozen: never import app code here.
 */
import { sql, type Kysely } from 'kysely';
import { eventIdType } from './portable-types.js';

const MAX_FUTURE_SKEW_MS = 300_000;
const MAX_PAST_SKEW_MS = 86_400_000;
const MAX_SESSION_MS = 43_200_000;

async function judgeTimestamps(db: Kysely<any>): Promise<void> {
  await sql`UPDATE analytics_events SET rejected_reason = 'timestamp_out_of_window'
    WHERE occurred_at_ms > received_at_ms + ${MAX_FUTURE_SKEW_MS} OR occurred_at_ms < received_at_ms - ${MAX_PAST_SKEW_MS}`.execute(db);
}

async function judgeClicksAndViews(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE migration_0014_claims AS
    SELECT c.id AS event_id, i.id AS impression_id
    FROM (SELECT id, user_id, post_id, received_at_ms,
            ROW_NUMBER() OVER (PARTITION BY type, user_id, post_id ORDER BY id) AS k
          FROM analytics_events WHERE type IN ('click', 'view') AND rejected_reason IS NULL) AS c
    JOIN (SELECT id, user_id, post_id, served_at_ms,
            ROW_NUMBER() OVER (PARTITION BY user_id, post_id ORDER BY served_at_ms, id) AS k
          FROM experiment_impressions) AS i
      ON i.user_id = c.user_id AND i.post_id = c.post_id AND i.k = c.k AND i.served_at_ms <= c.received_at_ms`.execute(db);
  await sql`CREATE UNIQUE INDEX migration_0014_claims_event ON migration_0014_claims (event_id)`.execute(db);
  await sql`UPDATE analytics_events
    SET impression_id = (SELECT m.impression_id FROM migration_0014_claims m WHERE m.event_id = analytics_events.id)
    WHERE id IN (SELECT event_id FROM migration_0014_claims)`.execute(db);
  await sql`DROP TABLE migration_0014_claims`.execute(db);
  await sql`UPDATE analytics_events
    SET rejected_reason = CASE
      WHEN NOT EXISTS (SELECT 1 FROM experiment_impressions i
        WHERE i.user_id = analytics_events.user_id AND i.post_id = analytics_events.post_id
          AND i.served_at_ms <= analytics_events.received_at_ms) THEN 'no_impression'
      WHEN type = 'click' THEN 'duplicate_click' ELSE 'duplicate_view' END
    WHERE type IN ('click', 'view') AND rejected_reason IS NULL AND impression_id IS NULL`.execute(db);
}

async function judgeSessions(db: Kysely<any>): Promise<void> {
  await sql`UPDATE analytics_events
    SET rejected_reason = CASE WHEN type = 'session_start' THEN 'duplicate_session_start' ELSE 'duplicate_session_end' END
    WHERE type IN ('session_start', 'session_end') AND rejected_reason IS NULL
      AND EXISTS (SELECT 1 FROM analytics_events o
        WHERE o.user_id = analytics_events.user_id AND o.session_id = analytics_events.session_id
          AND o.type = analytics_events.type AND o.rejected_reason IS NULL AND o.id < analytics_events.id)`.execute(db);
  const start = sql`(SELECT s.occurred_at_ms FROM analytics_events s
    WHERE s.user_id = analytics_events.user_id AND s.session_id = analytics_events.session_id
      AND s.type = 'session_start' AND s.rejected_reason IS NULL)`;
  await sql`UPDATE analytics_events
    SET rejected_reason = CASE WHEN occurred_at_ms < ${start} THEN 'session_ends_before_start' ELSE 'session_too_long' END
    WHERE type = 'session_end' AND rejected_reason IS NULL
      AND (occurred_at_ms < ${start} OR occurred_at_ms - ${start} > ${MAX_SESSION_MS})`.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one at a time.
  await db.schema.alterTable('analytics_events').addColumn('impression_id', eventIdType(db)).execute();
  await db.schema.alterTable('analytics_events').addColumn('rejected_reason', 'text').execute();
  await db.schema
    .createIndex('experiment_impressions_user_post')
    .on('experiment_impressions')
    .columns(['user_id', 'post_id', 'served_at_ms'])
    .execute();

  await judgeTimestamps(db);
  await judgeClicksAndViews(db);
  await judgeSessions(db);

  // NULLs are distinct in a unique index (SQLite and PostgreSQL): only claims are constrained.
  await db.schema
    .createIndex('analytics_events_impression_type')
    .on('analytics_events')
    .columns(['impression_id', 'type'])
    .unique()
    .execute();
  await db.schema
    .createIndex('analytics_events_accepted_session')
    .on('analytics_events')
    .columns(['user_id', 'session_id', 'type'])
    .unique()
    .where(sql<boolean>`rejected_reason IS NULL AND type IN ('session_start', 'session_end')`)
    .execute();
  // Session lookups at ingestion read every event of (user, session), accepted or not.
  await db.schema.createIndex('analytics_events_user_session').on('analytics_events').columns(['user_id', 'session_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('analytics_events_user_session').execute();
  await db.schema.dropIndex('analytics_events_accepted_session').execute();
  await db.schema.dropIndex('analytics_events_impression_type').execute();
  await db.schema.dropIndex('experiment_impressions_user_post').execute();
  await db.schema.alterTable('analytics_events').dropColumn('rejected_reason').execute();
  await db.schema.alterTable('analytics_events').dropColumn('impression_id').execute();
}
