/** SQL that records what the service served to enrolled users: impressions and performance counters. */
import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../db/database.js';
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
