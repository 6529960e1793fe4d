/**
 * `experiments.analysis_method`: how the experiment's results are read, chosen at creation
 * (`fixed` or `sequential`, src/experiments/stats/sequential.ts). Experiments created before this
 * column were planned fixed-horizon and keep that reading. Frozen: never import app code here.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('experiments')
    .addColumn('analysis_method', 'text', (c) => c.notNull().defaultTo('fixed'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('experiments').dropColumn('analysis_method').execute();
}
