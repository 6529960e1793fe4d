/**
 * SQL that records what enrolled users were served and did: impression rows (users at
 * `full`), per-user aggregate counts (every enrolled user, by pseudonym) and the per-variant
 * performance counters.
 */
import { sql, type Insertable, type Kysely } from 'kysely';
import type { Database } from '../platform/db/database.js';
import { addDayCounts, countedExperimentsAt } from './experiment-data.repository.js';
import type { ExperimentImpressionsTable, ExperimentPerformanceTable } from './experiment.tables.js';

/** Stores impressions (one row per served post). */
export async function insertImpressions(db: Kysely<Database>, rows: Insertable<ExperimentImpressionsTable>[]): Promise<void> {
  // 8 columns per row keeps each statement well under SQLite's 32766 bound parameters.
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('experiment_impressions')
      .values(rows.slice(i, i + 500))
      .execute();
  }
}

/** Adds to a variant's performance counters. */
export async function addPerformance(db: Kysely<Database>, row: ExperimentPerformanceTable): Promise<void> {
  await db
    .insertInto('experiment_performance')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['experiment_id', 'variant']).doUpdateSet((eb) => ({
        requests: eb('experiment_performance.requests', '+', eb.ref('excluded.requests')),
        errors: eb('experiment_performance.errors', '+', eb.ref('excluded.errors')),
        cache_hits: eb('experiment_performance.cache_hits', '+', eb.ref('excluded.cache_hits')),
        cache_lookups: eb('experiment_performance.cache_lookups', '+', eb.ref('excluded.cache_lookups')),
      })),
    )
    .execute();
}

/** Adds counts to a variant's latency histogram buckets. */
export async function addLatencyCounts(
  db: Kysely<Database>,
  experimentId: number,
  variant: string,
  counts: ReadonlyMap<number, number>,
): Promise<void> {
  for (const [bucket, count] of counts) {
    await db
      .insertInto('experiment_latency_buckets')
      .values({ experiment_id: experimentId, variant, bucket, count })
      .onConflict((oc) =>
        oc
          .columns(['experiment_id', 'variant', 'bucket'])
          .doUpdateSet((eb) => ({ count: eb('experiment_latency_buckets.count', '+', eb.ref('excluded.count')) })),
      )
      .execute();
  }
}

/** The counters of `experiment_user_counts` that events add to. */
export type UserCountColumn = 'impressions' | 'clicks' | 'interactions' | 'feedback_positive' | 'feedback_negative';

/**
 * Adds to the counts of the user (a pseudonym) in every experiment that counts something
 * happening at `atMs` (countedExperimentsAt), kept and per day; a negative amount takes an
 * undone interaction back out. A user in no experiment costs one indexed read.
 */
export async function addUserCounts(
  db: Kysely<Database>,
  pseudonym: string,
  atMs: number,
  column: UserCountColumn,
  amount: number,
): Promise<void> {
  const { rows } = await countedExperimentsAt(db, [pseudonym, atMs]);
  for (const row of rows) {
    const experimentId = Number(row.experiment_id);
    await db
      .updateTable('experiment_user_counts')
      .set((eb) => ({ [column]: eb(eb.ref(column), '+', amount) }))
      .where('experiment_id', '=', experimentId)
      .where('user_id', '=', pseudonym)
      .execute();
    await addDayCounts(db, experimentId, pseudonym, atMs, { [column]: amount });
  }
}

/**
 * Takes an undone interaction made at `createdAtMs` out of the pre-experiment engagement of
 * the user's experiments whose pre-period held it: [first start − preMs, first start).
 */
export async function removePreEngagement(db: Kysely<Database>, pseudonym: string, createdAtMs: number, preMs: number): Promise<void> {
  await db
    .updateTable('experiment_user_counts')
    .set((eb) => ({ pre_engagement: eb('pre_engagement', '-', 1) }))
    .where('user_id', '=', pseudonym)
    .where('pre_engagement', '>', 0)
    .where(
      sql<boolean>`(SELECT MIN(p.started_at_ms) FROM experiment_active_periods p WHERE p.experiment_id = experiment_user_counts.experiment_id)
        BETWEEN ${createdAtMs + 1} AND ${createdAtMs + preMs}`,
    )
    .execute();
}

/**
 * Adds an interaction logged after the fact, made at `createdAtMs`, to the pre-experiment
 * engagement of the user's experiments whose pre-period holds it (removePreEngagement's
 * inverse: the baseline taken at assignment could not count it yet).
 */
export async function addPreEngagement(db: Kysely<Database>, pseudonym: string, createdAtMs: number, preMs: number): Promise<void> {
  await db
    .updateTable('experiment_user_counts')
    .set((eb) => ({ pre_engagement: eb('pre_engagement', '+', 1) }))
    .where('user_id', '=', pseudonym)
    .where(
      sql<boolean>`(SELECT MIN(p.started_at_ms) FROM experiment_active_periods p WHERE p.experiment_id = experiment_user_counts.experiment_id)
        BETWEEN ${createdAtMs + 1} AND ${createdAtMs + preMs}`,
    )
    .execute();
}

/** Adds impressions of `limited` users (no impression rows) to their counts, per experiment. */
export async function addImpressionCounts(
  db: Kysely<Database>,
  counts: readonly { experimentId: number; pseudonym: string; impressions: number }[],
): Promise<void> {
  for (const c of counts) {
    await db
      .updateTable('experiment_user_counts')
      .set((eb) => ({ impressions: eb('impressions', '+', c.impressions) }))
      .where('experiment_id', '=', c.experimentId)
      .where('user_id', '=', c.pseudonym)
      .execute();
  }
}
