/**
 * Read-side SQL of an experiment's results: per-user counts (a page of users at a time,
 * by user id), the algorithm aggregates over impressions, and the performance counters.
 *
 * Attribution: an event, interaction or feedback of an enrolled user counts for the
 * experiment when it happened at or after the user's assignment and inside one of the
 * experiment's ACTIVE periods (client events by their receive time; interactions and
 * feedback, read from the recommendations feature's tables, by their creation time).
 * Impressions carry their experiment, recorded when served.
 *
 * Only accepted client events count (`rejected_reason IS NULL`: the analytics feature
 * judged them possible, see server/analytics/event-rules.ts). A click counts as the
 * impression it claimed, and an impression is claimed by one click at most (a unique
 * index), so a user's clicks never exceed their impressions: click-through rate ≤ 1 by
 * construction. Sessions outside [0, MAX_SESSION_MS] never count, whatever wrote them.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { MAX_SESSION_MS } from '../../src/experiments/event-rules.js';
import { countWhere, floor, greatest, least } from '../db/portable-sql.js';
import type { Database } from '../db/database.js';

/** One enrolled user of a page. */
export interface AssignmentPageRow {
  user_id: string;
  variant: string;
  assigned_at_ms: number;
  /** 1 when the user had no recorded activity before the assignment. */
  cold: number;
}

export interface UserCountRow {
  user_id: string;
  value: number;
}

export interface SessionRow {
  user_id: string;
  session_id: string;
  started_ms: number | null;
  ended_ms: number | null;
  clicks: number;
}

export interface FeedbackCountRow {
  user_id: string;
  positive: number;
  negative: number;
}

/** `time` falls at/after the assignment `a` and inside an ACTIVE period of its experiment. */
function inWindow(time: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`${time} >= a.assigned_at_ms AND EXISTS (
    SELECT 1 FROM experiment_active_periods p
    WHERE p.experiment_id = a.experiment_id AND ${time} >= p.started_at_ms
      AND (p.ended_at_ms IS NULL OR ${time} < p.ended_at_ms))`;
}

/** Up to `limit` enrolled users with ids after `afterUserId`, by user id. */
export async function pageAssignments(
  db: Kysely<Database>,
  experimentId: number,
  afterUserId: string | null,
  limit: number,
): Promise<AssignmentPageRow[]> {
  const after = afterUserId === null ? sql`` : sql`AND a.user_id > ${afterUserId}`;
  const result = await sql<AssignmentPageRow>`
    SELECT a.user_id, a.variant, a.assigned_at_ms,
      (NOT EXISTS (SELECT 1 FROM analytics_events e WHERE e.user_id = a.user_id AND e.received_at_ms < a.assigned_at_ms AND e.rejected_reason IS NULL)
       AND NOT EXISTS (SELECT 1 FROM interactions i WHERE i.user_id = a.user_id AND i.created_at_ms < a.assigned_at_ms)
       AND NOT EXISTS (SELECT 1 FROM feedback f WHERE f.user_id = a.user_id AND f.created_at_ms < a.assigned_at_ms)) AS cold
    FROM experiment_assignments a
    WHERE a.experiment_id = ${experimentId} ${after}
    ORDER BY a.user_id
    LIMIT ${limit}`.execute(db);
  return result.rows;
}

/** Assignments (alias `a`) of the experiment's users whose ids fall in [first, last]. */
function enrolledRange(experimentId: number, first: string, last: string): RawBuilder<unknown> {
  return sql`a.experiment_id = ${experimentId} AND a.user_id >= ${first} AND a.user_id <= ${last}`;
}

/** Impressions per user of the id range [first, last]. */
export async function impressionCounts(db: Kysely<Database>, experimentId: number, first: string, last: string): Promise<UserCountRow[]> {
  const result = await sql<UserCountRow>`
    SELECT user_id, COUNT(*) AS value FROM experiment_impressions
    WHERE experiment_id = ${experimentId} AND user_id >= ${first} AND user_id <= ${last}
    GROUP BY user_id`.execute(db);
  return result.rows;
}

/** Clicks per user of the range (with or without a session): this experiment's impressions claimed by an accepted click. */
export async function clickCounts(db: Kysely<Database>, experimentId: number, first: string, last: string): Promise<UserCountRow[]> {
  const result = await sql<UserCountRow>`
    SELECT a.user_id, COUNT(*) AS value
    FROM experiment_assignments a
      JOIN experiment_impressions i ON i.experiment_id = a.experiment_id AND i.user_id = a.user_id
      JOIN analytics_events e ON e.impression_id = i.id AND e.type = 'click'
    WHERE ${enrolledRange(experimentId, first, last)}
      AND e.rejected_reason IS NULL AND ${inWindow(sql`e.received_at_ms`)}
    GROUP BY a.user_id`.execute(db);
  return result.rows;
}

/**
 * Per user and session: its start and end times and the accepted clicks carrying its id, by
 * user then session. A session whose end precedes its start or comes more than
 * MAX_SESSION_MS after it is left out.
 */
export async function sessionRows(db: Kysely<Database>, experimentId: number, first: string, last: string): Promise<SessionRow[]> {
  const started = sql`MIN(CASE WHEN e.type = 'session_start' THEN e.occurred_at_ms END)`;
  const ended = sql`MAX(CASE WHEN e.type = 'session_end' THEN e.occurred_at_ms END)`;
  const result = await sql<SessionRow>`
    SELECT a.user_id, e.session_id, ${started} AS started_ms, ${ended} AS ended_ms,
      ${countWhere(sql`e.type = 'click'`)} AS clicks
    FROM experiment_assignments a JOIN analytics_events e ON e.user_id = a.user_id
    WHERE ${enrolledRange(experimentId, first, last)}
      AND e.session_id IS NOT NULL AND e.rejected_reason IS NULL AND ${inWindow(sql`e.received_at_ms`)}
    GROUP BY a.user_id, e.session_id
    HAVING ${started} IS NULL OR ${ended} IS NULL OR (${ended} >= ${started} AND ${ended} - ${started} <= ${MAX_SESSION_MS})
    ORDER BY a.user_id, e.session_id`.execute(db);
  return result.rows;
}

/** Interactions (favorite, bookmark, reblog still in place) per user of the range. */
export async function interactionCounts(db: Kysely<Database>, experimentId: number, first: string, last: string): Promise<UserCountRow[]> {
  const result = await sql<UserCountRow>`
    SELECT a.user_id, COUNT(*) AS value
    FROM experiment_assignments a JOIN interactions i ON i.user_id = a.user_id
    WHERE ${enrolledRange(experimentId, first, last)}
      AND ${inWindow(sql`i.created_at_ms`)}
    GROUP BY a.user_id`.execute(db);
  return result.rows;
}

/** CUPED's pre-period: the 14 days before the experiment first became active. */
export const PRE_PERIOD_MS = 14 * 24 * 60 * 60 * 1000;

/**
 * Pre-experiment engagement per user of the range: interactions (favorite, bookmark, reblog
 * still in place) created in [first start − PRE_PERIOD_MS, first start), where first start is
 * the earliest started_at_ms of the experiment's active periods; none before it first started.
 */
export async function preEngagementCounts(
  db: Kysely<Database>,
  experimentId: number,
  first: string,
  last: string,
): Promise<UserCountRow[]> {
  const result = await sql<UserCountRow>`
    SELECT a.user_id, COUNT(*) AS value
    FROM experiment_assignments a JOIN interactions i ON i.user_id = a.user_id
    JOIN (SELECT MIN(started_at_ms) AS start_ms FROM experiment_active_periods WHERE experiment_id = ${experimentId}) s
      ON s.start_ms IS NOT NULL
    WHERE ${enrolledRange(experimentId, first, last)}
      AND i.created_at_ms >= s.start_ms - ${PRE_PERIOD_MS} AND i.created_at_ms < s.start_ms
    GROUP BY a.user_id`.execute(db);
  return result.rows;
}

/** "more" (positive) and "less" (negative) feedback per user of the range. */
export async function feedbackCounts(db: Kysely<Database>, experimentId: number, first: string, last: string): Promise<FeedbackCountRow[]> {
  const result = await sql<FeedbackCountRow>`
    SELECT a.user_id, ${countWhere(sql`f.feedback = 'more'`)} AS positive, ${countWhere(sql`f.feedback = 'less'`)} AS negative
    FROM experiment_assignments a JOIN feedback f ON f.user_id = a.user_id
    WHERE ${enrolledRange(experimentId, first, last)}
      AND ${inWindow(sql`f.created_at_ms`)}
    GROUP BY a.user_id`.execute(db);
  return result.rows;
}

export interface ImpressionAggregateRow {
  variant: string;
  impressions: number;
  score_sum: number;
  distinct_per_user_sum: number;
  semantic_impressions: number;
  semantic_clicked: number;
}

/** Per variant: impressions, Σ score, Σ distinct posts per user, SEMANTIC_MATCH impressions and how many were clicked. */
export async function impressionAggregates(db: Kysely<Database>, experimentId: number): Promise<ImpressionAggregateRow[]> {
  const result = await sql<ImpressionAggregateRow>`
    SELECT variant, SUM(n) AS impressions, SUM(score_sum) AS score_sum, SUM(d) AS distinct_per_user_sum,
      SUM(sn) AS semantic_impressions, SUM(sc) AS semantic_clicked
    FROM (
      SELECT i.variant, i.user_id, COUNT(*) AS n, SUM(i.score) AS score_sum, COUNT(DISTINCT i.post_id) AS d,
        ${countWhere(sql`i.reason_code = 'SEMANTIC_MATCH'`)} AS sn,
        ${countWhere(sql`i.reason_code = 'SEMANTIC_MATCH' AND EXISTS (
          SELECT 1 FROM experiment_assignments a JOIN analytics_events e ON e.user_id = a.user_id
          WHERE a.experiment_id = i.experiment_id AND a.user_id = i.user_id
            AND e.type = 'click' AND e.post_id = i.post_id AND e.rejected_reason IS NULL AND ${inWindow(sql`e.received_at_ms`)})`)} AS sc
      FROM experiment_impressions i
      WHERE i.experiment_id = ${experimentId}
      GROUP BY i.variant, i.user_id
    ) AS per_user GROUP BY variant`.execute(db);
  return result.rows;
}

export interface ScoreBinRow {
  variant: string;
  bin: number;
  count: number;
}

/** Served posts per variant and score decile (0..9; a score of 1.0 falls in 9). */
export async function scoreBins(db: Kysely<Database>, experimentId: number): Promise<ScoreBinRow[]> {
  const result = await sql<ScoreBinRow>`
    SELECT variant, ${greatest(0, least(floor(sql`score * 10`), 9))} AS bin, COUNT(*) AS count
    FROM experiment_impressions WHERE experiment_id = ${experimentId}
    GROUP BY variant, bin`.execute(db);
  return result.rows;
}

export interface PerformanceRow {
  variant: string;
  requests: number;
  errors: number;
  cache_hits: number;
  cache_lookups: number;
}

/** The performance counters per variant. */
export async function performanceRows(db: Kysely<Database>, experimentId: number): Promise<PerformanceRow[]> {
  return db
    .selectFrom('experiment_performance')
    .select(['variant', 'requests', 'errors', 'cache_hits', 'cache_lookups'])
    .where('experiment_id', '=', experimentId)
    .execute();
}

/** The latency histogram per variant: bucket index -> count. */
export async function latencyBucketRows(
  db: Kysely<Database>,
  experimentId: number,
): Promise<{ variant: string; bucket: number; count: number }[]> {
  return db
    .selectFrom('experiment_latency_buckets')
    .select(['variant', 'bucket', 'count'])
    .where('experiment_id', '=', experimentId)
    .orderBy('variant')
    .orderBy('bucket')
    .execute();
}
