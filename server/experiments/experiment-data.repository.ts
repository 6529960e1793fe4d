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
 * judged them possible, see server/experiments/events/event-rules.ts). A click counts as the
 * impression it claimed, and an impression is claimed by one click at most (a unique
 * index), so a user's clicks never exceed their impressions: click-through rate ≤ 1 by
 * construction. Sessions outside [0, MAX_SESSION_MS] never count, whatever wrote them.
 *
 * Pseudonyms (issue 12): assignments, impressions and events hold the user's pseudonym, so
 * they join each other as before; interactions and feedback keep raw ids (ranking needs
 * them) and cannot be joined with them. Their counts, the pre-experiment engagement and the
 * cold-start flag therefore come from `experiment_user_counts`, kept at write time
 * (assignmentBaseline at assignment, serving.repository's addUserCounts afterwards), as do
 * the impressions, clicks and sessions of users at `limited`, of whom no event rows are kept.
 * The range functions reading interactions and feedback by user (interactionCounts,
 * feedbackCounts, preEngagementCounts, coldUsers) serve the one-time conversion of rows from
 * before pseudonyms (privacy-backfill), while assignments still hold raw ids.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { MAX_SESSION_MS } from '../../src/experiments/event-rules.js';
import { countWhere, floor, greatest, least } from '../platform/db/portable-sql.js';
import type { Database } from '../platform/db/database.js';
import { queryTemplate } from '../platform/db/precompiled-query.js';
import { DAY_COUNT_COLUMNS, USER_COUNT_COLUMNS, type DayCountColumn, type DayCounters } from './counters.js';

/** One enrolled user of a page, with the counts kept at write time (zeros when the row is missing). */
export interface AssignmentPageRow extends DayCounters<number> {
  user_id: string;
  variant: string;
  assigned_at_ms: number;
  /** The host of the user's canonical id (or the local label), recorded at assignment; null on older rows. */
  instance: string | null;
  /** 1 when the user had no recorded activity before the assignment. */
  cold: number;
  pre_engagement: number;
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
  /**
   * With `withReceipt`: when the later of its start and end was received, the session's day (a
   * `limited` user's session is folded then too).
   */
  received_ms?: number | null;
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

/** Up to `limit` enrolled users with ids (pseudonyms) after `afterUserId`, by user id, with their kept counts. */
export async function pageAssignments(
  db: Kysely<Database>,
  experimentId: number,
  afterUserId: string | null,
  limit: number,
): Promise<AssignmentPageRow[]> {
  const after = afterUserId === null ? sql`` : sql`AND a.user_id > ${afterUserId}`;
  const kept = (column: string) => sql`COALESCE(${sql.ref(`c.${column}`)}, 0) AS ${sql.ref(column)}`;
  const result = await sql<AssignmentPageRow>`
    SELECT a.user_id, a.variant, a.assigned_at_ms, a.instance, ${sql.join(USER_COUNT_COLUMNS.map(kept))}
    FROM experiment_assignments a
      LEFT JOIN experiment_user_counts c ON c.experiment_id = a.experiment_id AND c.user_id = a.user_id
    WHERE a.experiment_id = ${experimentId} ${after}
    ORDER BY a.user_id
    LIMIT ${limit}`.execute(db);
  return result.rows;
}

/**
 * At a user's assignment (`pseudonym` to `experimentId` at `assignedAtMs`): whether they had
 * no activity before it (accepted events by pseudonym, interactions and feedback by raw id),
 * and their interactions in the pre-period [first start − PRE_PERIOD_MS, first start).
 */
export async function assignmentBaseline(
  db: Kysely<Database>,
  experimentId: number,
  rawUserId: string,
  pseudonym: string,
  assignedAtMs: number,
): Promise<{ cold: number; pre_engagement: number }> {
  const result = await sql<{ cold: number; pre_engagement: number }>`
    SELECT
      (NOT EXISTS (SELECT 1 FROM analytics_events e WHERE e.user_id = ${pseudonym} AND e.received_at_ms < ${assignedAtMs} AND e.rejected_reason IS NULL)
       AND NOT EXISTS (SELECT 1 FROM interactions i WHERE i.user_id = ${rawUserId} AND i.created_at_ms < ${assignedAtMs})
       AND NOT EXISTS (SELECT 1 FROM feedback f WHERE f.user_id = ${rawUserId} AND f.created_at_ms < ${assignedAtMs})) AS cold,
      (SELECT COUNT(*) FROM interactions i
        JOIN (SELECT MIN(started_at_ms) AS start_ms FROM experiment_active_periods WHERE experiment_id = ${experimentId}) s ON s.start_ms IS NOT NULL
        WHERE i.user_id = ${rawUserId} AND i.created_at_ms >= s.start_ms - ${PRE_PERIOD_MS} AND i.created_at_ms < s.start_ms) AS pre_engagement`.execute(
    db,
  );
  const row = result.rows[0];
  return { cold: Number(row?.cold ?? 0) === 1 ? 1 : 0, pre_engagement: Number(row?.pre_engagement ?? 0) };
}

/** Users of the range [first, last] with no activity before their assignment (raw ids: the conversion of older rows). */
export async function coldUsers(db: Kysely<Database>, experimentId: number, first: string, last: string): Promise<UserCountRow[]> {
  const result = await sql<UserCountRow>`
    SELECT a.user_id, 1 AS value FROM experiment_assignments a
    WHERE ${enrolledRange(experimentId, first, last)}
      AND NOT EXISTS (SELECT 1 FROM analytics_events e WHERE e.user_id = a.user_id AND e.received_at_ms < a.assigned_at_ms AND e.rejected_reason IS NULL)
      AND NOT EXISTS (SELECT 1 FROM interactions i WHERE i.user_id = a.user_id AND i.created_at_ms < a.assigned_at_ms)
      AND NOT EXISTS (SELECT 1 FROM feedback f WHERE f.user_id = a.user_id AND f.created_at_ms < a.assigned_at_ms)`.execute(db);
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
export async function sessionRows(
  db: Kysely<Database>,
  experimentId: number,
  first: string,
  last: string,
  options: { withReceipt?: boolean } = {},
): Promise<SessionRow[]> {
  const receipt =
    options.withReceipt === true
      ? sql`, MAX(CASE WHEN e.type IN ('session_start', 'session_end') THEN e.received_at_ms END) AS received_ms`
      : sql``;
  const started = sql`MIN(CASE WHEN e.type = 'session_start' THEN e.occurred_at_ms END)`;
  const ended = sql`MAX(CASE WHEN e.type = 'session_end' THEN e.occurred_at_ms END)`;
  const result = await sql<SessionRow>`
    SELECT a.user_id, e.session_id, ${started} AS started_ms, ${ended} AS ended_ms,
      ${countWhere(sql`e.type = 'click'`)} AS clicks${receipt}
    FROM experiment_assignments a JOIN analytics_events e ON e.user_id = a.user_id
    WHERE ${enrolledRange(experimentId, first, last)}
      AND e.session_id IS NOT NULL AND e.rejected_reason IS NULL AND ${inWindow(sql`e.received_at_ms`)}
    GROUP BY a.user_id, e.session_id
    HAVING ${started} IS NULL OR ${ended} IS NULL OR (${ended} >= ${started} AND ${ended} - ${started} <= ${MAX_SESSION_MS})
    ORDER BY a.user_id, e.session_id`.execute(db);
  return result.rows;
}

/** One day of a user's counts: UTC midnight (epoch ms) and a value. */
export interface UserDayCountRow {
  user_id: string;
  day_ms: number;
  value: number;
}

const DAY_MS = 86_400_000;
/**
 * UTC midnight of an epoch-ms column: integer division (times are positive, so it floors) on
 * both dialects, the divisor inlined as an integer literal (a bound parameter may be a double).
 */
const dayOf = (column: RawBuilder<unknown>): RawBuilder<number> => sql<number>`(${column} / ${sql.lit(DAY_MS)}) * ${sql.lit(DAY_MS)}`;

/** Impressions per user and UTC day of serving (served_at_ms), for the range [first, last]. */
export async function impressionDayCounts(
  db: Kysely<Database>,
  experimentId: number,
  first: string,
  last: string,
): Promise<UserDayCountRow[]> {
  const day = dayOf(sql`served_at_ms`);
  const result = await sql<UserDayCountRow>`
    SELECT user_id, ${day} AS day_ms, COUNT(*) AS value FROM experiment_impressions
    WHERE experiment_id = ${experimentId} AND user_id >= ${first} AND user_id <= ${last}
    GROUP BY user_id, ${day}`.execute(db);
  return result.rows;
}

/** Clicks per user and UTC day of receipt, counted as clickCounts counts them. */
export async function clickDayCounts(db: Kysely<Database>, experimentId: number, first: string, last: string): Promise<UserDayCountRow[]> {
  const day = dayOf(sql`e.received_at_ms`);
  const result = await sql<UserDayCountRow>`
    SELECT a.user_id, ${day} AS day_ms, COUNT(*) AS value
    FROM experiment_assignments a
      JOIN experiment_impressions i ON i.experiment_id = a.experiment_id AND i.user_id = a.user_id
      JOIN analytics_events e ON e.impression_id = i.id AND e.type = 'click'
    WHERE ${enrolledRange(experimentId, first, last)}
      AND e.rejected_reason IS NULL AND ${inWindow(sql`e.received_at_ms`)}
    GROUP BY a.user_id, ${day}`.execute(db);
  return result.rows;
}

/** The kept counts split by day (experiment_user_day_counts) of the range's users. */
export type KeptDayCountRow = Omit<AssignmentPageRow, 'variant' | 'assigned_at_ms' | 'instance' | 'cold' | 'pre_engagement'> & {
  day_ms: number;
};

export async function keptDayCounts(db: Kysely<Database>, experimentId: number, first: string, last: string): Promise<KeptDayCountRow[]> {
  return db
    .selectFrom('experiment_user_day_counts')
    .select(['user_id', 'day_ms', ...DAY_COUNT_COLUMNS])
    .where('experiment_id', '=', experimentId)
    .where('user_id', '>=', first)
    .where('user_id', '<=', last)
    .orderBy('user_id')
    .orderBy('day_ms')
    .execute();
}

export { DAY_COUNT_COLUMNS, type DayCountColumn } from './counters.js';

/**
 * Adds `deltas` to the user's (a pseudonym's) counts of `atMs`'s UTC day in one experiment:
 * the per-day side of a change to experiment_user_counts, in the same transaction.
 */
export async function addDayCounts(
  db: Kysely<Database>,
  experimentId: number,
  pseudonym: string,
  atMs: number,
  deltas: Partial<Record<DayCountColumn, number>>,
): Promise<void> {
  const entries = Object.entries(deltas).filter(([, amount]) => amount !== 0) as Array<[DayCountColumn, number]>;
  if (entries.length === 0) return;
  await db
    .insertInto('experiment_user_day_counts')
    .values({ experiment_id: experimentId, user_id: pseudonym, day_ms: Math.floor(atMs / DAY_MS) * DAY_MS, ...Object.fromEntries(entries) })
    .onConflict((oc) =>
      oc
        .columns(['experiment_id', 'user_id', 'day_ms'])
        .doUpdateSet((eb) =>
          Object.fromEntries(
            entries.map(([column]) => [column, eb(eb.ref(`experiment_user_day_counts.${column}`), '+', eb.ref(`excluded.${column}`))]),
          ),
        ),
    )
    .execute();
}

/**
 * The experiments whose kept counts an event of the user (a pseudonym) at `atMs` moves: the
 * user assigned at or before `atMs`, with a counts row, the experiment ACTIVE then (the
 * analysis's window). Built once (it runs on every interaction and feedback, and finds none
 * for a user in no experiment).
 */
export const countedExperimentsAt = queryTemplate<Database, { experiment_id: number }>((db, [pseudonym, atMs]) =>
  db
    .selectFrom('experiment_assignments as a')
    .select('a.experiment_id')
    .where('a.user_id', '=', pseudonym as string)
    .where('a.assigned_at_ms', '<=', atMs as number)
    .where(sql<boolean>`EXISTS (SELECT 1 FROM experiment_user_counts c WHERE c.experiment_id = a.experiment_id AND c.user_id = a.user_id)`)
    .where(
      sql<boolean>`EXISTS (SELECT 1 FROM experiment_active_periods p WHERE p.experiment_id = a.experiment_id
        AND p.started_at_ms <= ${atMs} AND (p.ended_at_ms IS NULL OR ${atMs} < p.ended_at_ms))`,
    ),
);

/** The per-day side of serving.repository's addImpressionCounts (`limited` users' impressions), on the day of `servedAtMs`. */
export async function addImpressionDayCounts(
  db: Kysely<Database>,
  counts: readonly { experimentId: number; pseudonym: string; impressions: number }[],
  servedAtMs: number,
): Promise<void> {
  for (const c of counts) await addDayCounts(db, c.experimentId, c.pseudonym, servedAtMs, { impressions: c.impressions });
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
