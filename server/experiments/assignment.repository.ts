/** SQL for users' recorded variant assignments. */
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../db/database.js';
import type { ExperimentAssignmentsTable } from './experiment.tables.js';

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

/**
 * Records a first assignment unless one exists (the primary key decides a race), then
 * reads back the row that won: the one every caller must use.
 */
export async function recordAssignment(db: Kysely<Database>, row: AssignmentRow): Promise<AssignmentRow> {
  await db
    .insertInto('experiment_assignments')
    .values(row)
    .onConflict((oc) => oc.columns(['experiment_id', 'user_id']).doNothing())
    .execute();
  return db
    .selectFrom('experiment_assignments')
    .selectAll()
    .where('experiment_id', '=', row.experiment_id)
    .where('user_id', '=', row.user_id)
    .executeTakeFirstOrThrow();
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

/** Every recorded assignment of the experiment (user and variant), streamed in rowid order. */
export function streamAssignments(db: Kysely<Database>, experimentId: number): AsyncIterable<Pick<AssignmentRow, 'user_id' | 'variant'>> {
  return db.selectFrom('experiment_assignments').select(['user_id', 'variant']).where('experiment_id', '=', experimentId).stream();
}
