/**
 * `ranking_fits`: every run of the `ranking_fit` agent (issue 25, item 4) that evaluated the
 * default ranking on the service's own interactions, newest last:
 * - `status`: `applied` (the default moved to `choice`), `kept` (it stayed: `choice` is the
 *   point kept), `insufficient` (too little data), `reverted` (an operator took an applied
 *   fit back: the previous applied row rules again);
 * - `choice` and `previous`: the points, as JSON (`{"collaborative", "recency_half_life_hours"}`);
 * - `interactions`: how many interactions the service held when it ran (the next fit waits for more);
 * - `summary` (one line) and `evidence` (JSON: users, each point's nDCG, the paired difference).
 * The default in effect is the newest `applied` row's choice (none: the shipped default).
 * Epoch milliseconds are bigint in PostgreSQL.
 *
 * Frozen: never import app code here.
 */
import type { Kysely } from 'kysely';
import { epochMsType } from './portable-types.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ranking_fits')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('created_at_ms', epochMsType(db), (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('choice', 'text', (c) => c.notNull())
    .addColumn('previous', 'text', (c) => c.notNull())
    .addColumn('interactions', epochMsType(db), (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('evidence', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ranking_fits_time').on('ranking_fits').columns(['created_at_ms']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ranking_fits').execute();
}
