/**
 * SQL for users' recorded variant assignments. `user_id` is the user's pseudonym
 * (PrivacyPolicy.pseudonym), never the raw id; each assignment has its row of aggregate
 * counts (experiment_user_counts) made in the same transaction, holding the variant bucket
 * of the canonical id, which the pseudonym cannot give back.
 */
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import { instanceOfUser } from '../../src/experiments/canonical-user-id.js';
import type { Database } from '../platform/db/database.js';
import type { ExperimentAssignmentsTable } from './experiment.tables.js';
import { assignmentBaseline } from './experiment-data.repository.js';

export type AssignmentRow = Selectable<ExperimentAssignmentsTable>;

/** The user's recorded assignments in any of these experiments. */
export async function findUserAssignments(
  db: Kysely<Database>,
  userId: string,
  experimentIds: readonly number[],
): Promise<AssignmentRow[]> {
  if (experimentIds.length === 0) return [];
  return db
    .selectFrom('experiment_assignments')
    .selectAll()
    .where('user_id', '=', userId)
    .where('experiment_id', 'in', [...experimentIds])
    .execute();
}

/** Who is being assigned: the raw id (to read their past interactions, never stored) and the bucket. */
export interface AssignedUser {
  rawUserId: string;
  bucket: number;
}

/**
 * Records a first assignment (`row.user_id` a pseudonym) unless one exists (the primary key
 * decides a race), with its counts row (bucket, cold start, pre-experiment engagement), then
 * reads back the row that won: the one every caller must use.
 */
export async function recordAssignment(
  db: Kysely<Database>,
  row: Insertable<ExperimentAssignmentsTable>,
  user: AssignedUser,
): Promise<AssignmentRow> {
  return db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('experiment_assignments')
      .values(row)
      .onConflict((oc) => oc.columns(['experiment_id', 'user_id']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) {
      // The pseudonym hides the user's host: the per-instance breakdown reads it from here (migration 0022).
      await sql`UPDATE experiment_assignments SET instance = ${instanceOfUser(user.rawUserId)}
        WHERE experiment_id = ${row.experiment_id} AND user_id = ${row.user_id}`.execute(trx);
      const baseline = await assignmentBaseline(trx, row.experiment_id, user.rawUserId, row.user_id, row.assigned_at_ms);
      await trx
        .insertInto('experiment_user_counts')
        .values({ experiment_id: row.experiment_id, user_id: row.user_id, variant: row.variant, bucket: user.bucket, ...baseline })
        .onConflict((oc) => oc.columns(['experiment_id', 'user_id']).doNothing())
        .execute();
    }
    return trx
      .selectFrom('experiment_assignments')
      .selectAll()
      .where('experiment_id', '=', row.experiment_id)
      .where('user_id', '=', row.user_id)
      .executeTakeFirstOrThrow();
  });
}

/** Users assigned per variant. */
export async function countAssignmentsByVariant(db: Kysely<Database>, experimentId: number): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('experiment_assignments')
    .select(['variant', (eb) => eb.fn.countAll<number>().as('users')])
    .where('experiment_id', '=', experimentId)
    .groupBy('variant')
    .execute();
  return new Map(rows.map((row) => [row.variant, Number(row.users)]));
}

/**
 * Every recorded assignment of the experiment: the user's pseudonym, variant and bucket (of
 * the canonical id, recorded at assignment), in no particular order (callers count). Streamed
 * in chunks, never all in memory: better-sqlite3's iterator on SQLite, a server-side cursor
 * (pg-cursor, configured in server/platform/db/postgres-connection.ts) on PostgreSQL.
 */
export function streamAssignments(
  db: Kysely<Database>,
  experimentId: number,
): AsyncIterable<Pick<AssignmentRow, 'user_id' | 'variant'> & { bucket: number }> {
  return db
    .selectFrom('experiment_user_counts')
    .select(['user_id', 'variant', 'bucket'])
    .where('experiment_id', '=', experimentId)
    .stream();
}
