/** SQL that records what the service served to enrolled users: impressions and performance counters. */
import { sql, type Insertable, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { ExperimentImpressionsTable, ExperimentPerformanceTable } from './experiment.tables.js';

/** Stores impressions (one row per served post). */
export async function insertImpressions(db: Kysely<Database>, rows: Insertable<ExperimentImpressionsTable>[]): Promise<void> {
  // 8 columns per row keeps each statement well under SQLite's 32766 bound parameters.
  for (let i = 0; i < rows.length; i += 500) {
    await db.insertInto('experiment_impressions').values(rows.slice(i, i + 500)).execute();
  }
}

/** Adds to a variant's performance counters. */
export async function addPerformance(db: Kysely<Database>, row: ExperimentPerformanceTable): Promise<void> {
  await db
    .insertInto('experiment_performance')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['experiment_id', 'variant']).doUpdateSet({
        requests: sql`requests + excluded.requests`,
        errors: sql`errors + excluded.errors`,
        cache_hits: sql`cache_hits + excluded.cache_hits`,
        cache_lookups: sql`cache_lookups + excluded.cache_lookups`,
      }),
    )
    .execute();
}

/** Adds counts to a variant's latency histogram buckets. */
export async function addLatencyCounts(db: Kysely<Database>, experimentId: number, variant: string, counts: ReadonlyMap<number, number>): Promise<void> {
  for (const [bucket, count] of counts) {
    await db
      .insertInto('experiment_latency_buckets')
      .values({ experiment_id: experimentId, variant, bucket, count })
      .onConflict((oc) => oc.columns(['experiment_id', 'variant', 'bucket']).doUpdateSet({ count: sql`count + excluded.count` }))
      .execute();
  }
}
