/**
 * SQL of interleaving experiments: the experiment's type, the team of every interleaved
 * impression, and per user the impressions and accepted clicks credited to each team.
 *
 * Credit: an accepted click (analytics_events, `rejected_reason IS NULL`) claims one of the
 * experiment's impressions (experiment_impressions, as for the click-through rate); it is
 * credited to the team of the latest interleaved impression of that post to that user served
 * at or before the click, and counts, as every event does, when it came at or after the
 * user's assignment and inside an ACTIVE period of the experiment.
 */
import { sql, type Insertable, type Kysely } from 'kysely';
import { DEFAULT_EXPERIMENT_TYPE, isExperimentType, type ExperimentType } from '../../../src/experiments/interleaving/experiment-type.js';
import type { Database } from '../../platform/db/database.js';
import type { InterleavingImpressionsTable } from './interleaving.tables.js';

/** Records an experiment's type (the column's default is `ab`). */
export async function setExperimentType(db: Kysely<Database>, experimentId: number, type: ExperimentType): Promise<void> {
  await db.updateTable('experiments').set({ type }).where('id', '=', experimentId).execute();
}

/** The types of these experiments (an id without a row is left out). */
export async function findExperimentTypes(db: Kysely<Database>, ids: readonly number[]): Promise<Map<number, ExperimentType>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('experiments')
    .select(['id', 'type'])
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [row.id, isExperimentType(row.type) ? row.type : DEFAULT_EXPERIMENT_TYPE]));
}

/** Stores interleaved impressions with their teams. */
export async function insertInterleavingImpressions(db: Kysely<Database>, rows: Insertable<InterleavingImpressionsTable>[]): Promise<void> {
  // 5 columns per row: 500 rows stay far below SQLite's bound-parameter limit.
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('interleaving_impressions')
      .values(rows.slice(i, i + 500))
      .execute();
  }
}

/** Per user and team: interleaved impressions or credited clicks. */
export interface TeamCountRow {
  user_id: string;
  team: string;
  value: number;
}

/** Interleaved impressions per user and team. */
export async function teamImpressionCounts(db: Kysely<Database>, experimentId: number): Promise<TeamCountRow[]> {
  const result = await sql<TeamCountRow>`
    SELECT user_id, team, COUNT(*) AS value FROM interleaving_impressions
    WHERE experiment_id = ${experimentId}
    GROUP BY user_id, team ORDER BY user_id, team`.execute(db);
  return result.rows;
}

/** Accepted clicks per user and credited team (see the header for the rule). */
export async function creditedClickCounts(db: Kysely<Database>, experimentId: number): Promise<TeamCountRow[]> {
  const result = await sql<TeamCountRow>`
    SELECT user_id, team, COUNT(*) AS value FROM (
      SELECT i.user_id AS user_id, (
        SELECT t.team FROM interleaving_impressions t
        WHERE t.experiment_id = i.experiment_id AND t.user_id = i.user_id AND t.post_id = i.post_id
          AND t.served_at_ms <= e.received_at_ms
        ORDER BY t.served_at_ms DESC, t.id DESC LIMIT 1) AS team
      FROM experiment_impressions i
        JOIN analytics_events e ON e.impression_id = i.id AND e.type = 'click'
        JOIN experiment_assignments a ON a.experiment_id = i.experiment_id AND a.user_id = i.user_id
      WHERE i.experiment_id = ${experimentId} AND e.rejected_reason IS NULL
        AND e.received_at_ms >= a.assigned_at_ms AND EXISTS (
          SELECT 1 FROM experiment_active_periods p
          WHERE p.experiment_id = a.experiment_id AND e.received_at_ms >= p.started_at_ms
            AND (p.ended_at_ms IS NULL OR e.received_at_ms < p.ended_at_ms))
    ) AS credited
    WHERE team IS NOT NULL
    GROUP BY user_id, team ORDER BY user_id, team`.execute(db);
  return result.rows;
}
