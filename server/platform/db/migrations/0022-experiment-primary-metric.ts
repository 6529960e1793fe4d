/**
 * Issue 13's per-experiment choices and the instance of each enrolled user:
 * - `experiments.guardrail_metrics`: JSON array of metric names tested one-sided for harm;
 *   null for experiments created before guardrails (read as the defaults of their time:
 *   bounce_rate and user_satisfaction, without the primary metric).
 * - `experiments.gate_rule`: `bounds` | `point`, how the gate agent and `gates check` judge
 *   the experiment; older experiments keep `bounds`, the rule they were judged by.
 * - `experiment_assignments.instance`: the host of the user's canonical id (or the local
 *   label), so per-instance breakdowns survive pseudonymised user ids; null for older rows.
 * Frozen: never import app code here.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('experiments').addColumn('guardrail_metrics', 'text').execute();
  await db.schema
    .alterTable('experiments')
    .addColumn('gate_rule', 'text', (c) => c.notNull().defaultTo('bounds'))
    .execute();
  await db.schema.alterTable('experiment_assignments').addColumn('instance', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('experiment_assignments').dropColumn('instance').execute();
  await db.schema.alterTable('experiments').dropColumn('gate_rule').execute();
  await db.schema.alterTable('experiments').dropColumn('guardrail_metrics').execute();
}
