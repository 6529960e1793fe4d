/** SQL of `agent_runs`: the last successful run of each cluster agent, shared by every instance. */
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../db/database.js';
import type { AgentRunsTable } from './agents.tables.js';

export type AgentRunRow = Selectable<AgentRunsTable>;

/** The last successful run of `name` recorded by any process, if any. */
export async function findAgentRun(db: Kysely<Database>, name: string): Promise<AgentRunRow | undefined> {
  return db.selectFrom('agent_runs').selectAll().where('name', '=', name).executeTakeFirst();
}

/** Records `row` as the agent's last successful run, replacing the one before. */
export async function recordAgentRun(db: Kysely<Database>, row: AgentRunRow): Promise<void> {
  await db
    .insertInto('agent_runs')
    .values(row)
    .onConflict((oc) =>
      oc.column('name').doUpdateSet({ last_success_at_ms: row.last_success_at_ms, ran_by: row.ran_by, run_kind: row.run_kind }),
    )
    .execute();
}
