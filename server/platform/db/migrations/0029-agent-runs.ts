/**
 * `agent_runs`: the last successful run of each cluster agent, whichever instance (or
 * `recsvc agents run` process) did it, so that instances sharing the database run a cluster
 * agent about once per interval between them instead of once each. One row per agent name,
 * overwritten by each success (read and written inside the agent's exclusive lock); a failed
 * run writes nothing. `ran_by` names the process ("host pid 123"), `run_kind` is `scheduled`
 * or `explicit` (run by hand). Epoch milliseconds are bigint in PostgreSQL.
 *
 * Frozen: never import app code here.
 */
import type { Kysely } from 'kysely';
import { epochMsType } from './portable-types.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('agent_runs')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('last_success_at_ms', epochMsType(db), (c) => c.notNull())
    .addColumn('ran_by', 'text', (c) => c.notNull())
    .addColumn('run_kind', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('agent_runs').execute();
}
