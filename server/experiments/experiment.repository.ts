/** SQL for experiments, their variants and ACTIVE periods. */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../platform/db/database.js';
import type { ExperimentActivePeriodsTable, ExperimentsTable, ExperimentVariantsTable } from './experiment.tables.js';

export type ExperimentRow = Selectable<ExperimentsTable>;
export type VariantRow = Selectable<ExperimentVariantsTable>;
export type ActivePeriodRow = Selectable<ExperimentActivePeriodsTable>;

/** Stores a new experiment; returns its id. */
export async function insertExperiment(db: Kysely<Database>, row: Omit<Insertable<ExperimentsTable>, 'id'>): Promise<number> {
  const result = await db.insertInto('experiments').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(result.id);
}

/** Stores an experiment's variants. */
export async function insertVariants(db: Kysely<Database>, rows: Insertable<ExperimentVariantsTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('experiment_variants').values(rows).execute();
}

/** The experiment with this id, if any. */
export async function findExperimentRow(db: Kysely<Database>, id: number): Promise<ExperimentRow | undefined> {
  return db.selectFrom('experiments').selectAll().where('id', '=', id).executeTakeFirst();
}

/** One page of a list by id, oldest first: at most `limit` experiments with ids above `afterId`. */
export interface ExperimentPage {
  limit: number;
  afterId?: number;
}

/** Experiments, oldest first, optionally of some statuses, optionally one page of them. */
export async function listExperimentRows(
  db: Kysely<Database>,
  statuses?: readonly string[],
  page?: ExperimentPage,
): Promise<ExperimentRow[]> {
  let query = db.selectFrom('experiments').selectAll();
  if (statuses) query = query.where('status', 'in', statuses.length > 0 ? [...statuses] : ['']);
  if (page?.afterId !== undefined) query = query.where('id', '>', page.afterId);
  if (page) query = query.limit(page.limit);
  return query.orderBy('id').execute();
}

/** The variants of these experiments, in variant order. */
export async function listVariantRows(db: Kysely<Database>, experimentIds: readonly number[]): Promise<VariantRow[]> {
  if (experimentIds.length === 0) return [];
  return db
    .selectFrom('experiment_variants')
    .selectAll()
    .where('experiment_id', 'in', [...experimentIds])
    .orderBy('experiment_id')
    .orderBy('position')
    .execute();
}

/** Sets the status (and whichever timestamps are given). */
export async function updateExperimentStatus(
  db: Kysely<Database>,
  id: number,
  changes: Pick<ExperimentsTable, 'status' | 'updated_at'> & Partial<Pick<ExperimentsTable, 'started_at' | 'ended_at'>>,
): Promise<void> {
  await db.updateTable('experiments').set(changes).where('id', '=', id).execute();
}

/** Opens an ACTIVE period now. */
export async function openActivePeriod(db: Kysely<Database>, experimentId: number, nowMs: number): Promise<void> {
  await db
    .insertInto('experiment_active_periods')
    .values({ experiment_id: experimentId, started_at_ms: nowMs, ended_at_ms: null })
    .execute();
}

/** Closes the open ACTIVE period, if any. */
export async function closeActivePeriod(db: Kysely<Database>, experimentId: number, nowMs: number): Promise<void> {
  await db
    .updateTable('experiment_active_periods')
    .set({ ended_at_ms: nowMs })
    .where('experiment_id', '=', experimentId)
    .where('ended_at_ms', 'is', null)
    .execute();
}

/** The experiment's ACTIVE periods, oldest first. */
export async function listActivePeriods(db: Kysely<Database>, experimentId: number): Promise<ActivePeriodRow[]> {
  return db
    .selectFrom('experiment_active_periods')
    .selectAll()
    .where('experiment_id', '=', experimentId)
    .orderBy('started_at_ms')
    .execute();
}

/** Marks a variant blocked (once: an already blocked variant keeps its first reason); true when it changed. */
export async function blockVariant(
  db: Kysely<Database>,
  experimentId: number,
  variant: string,
  reason: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('experiment_variants')
    .set({ blocked: 1, blocked_at: at, blocked_reason: reason })
    .where('experiment_id', '=', experimentId)
    .where('name', '=', variant)
    .where('blocked', '=', 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Sets variants' allocations by name (positions, and so bucket order, unchanged) and the experiment's updated_at. */
export async function updateVariantAllocations(
  db: Kysely<Database>,
  experimentId: number,
  allocations: readonly { name: string; traffic_allocation: number }[],
  at: string,
): Promise<void> {
  for (const { name, traffic_allocation } of allocations) {
    await db
      .updateTable('experiment_variants')
      .set({ traffic_allocation })
      .where('experiment_id', '=', experimentId)
      .where('name', '=', name)
      .execute();
  }
  await db.updateTable('experiments').set({ updated_at: at }).where('id', '=', experimentId).execute();
}
