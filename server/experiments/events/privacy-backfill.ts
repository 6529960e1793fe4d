/**
 * The one-time conversion of analytics rows written before pseudonyms (issue 12), run at
 * start in code because the pseudonym key is not available to a migration (0021 only made
 * the tables). In one transaction, once (recorded in `privacy_backfills`; on PostgreSQL under
 * an advisory lock, so instances starting together do not both convert):
 *
 * 1. each recorded assignment gets its experiment_user_counts row, computed from the rows
 *    as they stand, while assignments still hold raw ids: the bucket (the spec's rule on the
 *    raw id), cold start, pre-experiment engagement, and the interactions and feedback in
 *    the experiment window — what the analysis used to join at read time;
 * 2. assignments without an instance get the host of their raw id (the pseudonym hides it);
 * 3. every raw user id in experiment_assignments, experiment_impressions,
 *    analytics_events and interleaving_impressions is replaced by its pseudonym.
 *
 * Afterwards the analysis gives the numbers it gave before. Rows of users whose level no
 * longer allows them are converted too; the retention agent purges them on its schedule.
 */
import { sql, type Kysely } from 'kysely';
import { lockForTransaction } from '../../platform/db/transaction-lock.js';
import { bucketOf } from '../../../src/experiments/assignment.js';
import { instanceOfUser } from '../../../src/experiments/canonical-user-id.js';
import type { Database } from '../../platform/db/database.js';
import { coldUsers, feedbackCounts, interactionCounts, preEngagementCounts, type UserCountRow } from '../experiment-data.repository.js';
import type { PrivacyPolicy } from '../../privacy/privacy-policy.types.js';

export const PSEUDONYM_BACKFILL = 'pseudonyms-v1';
const PAGE = 1000;

/** The tables whose user ids are pseudonyms. */
export const PSEUDONYMISED_TABLES = [
  'experiment_assignments',
  'experiment_impressions',
  'analytics_events',
  'interleaving_impressions',
] as const;

/** Converts rows from before pseudonyms, unless done already; returns whether it ran. */
export async function pseudonymiseStoredIds(
  db: Kysely<Database>,
  privacy: Pick<PrivacyPolicy, 'pseudonym'>,
  nowMs = Date.now(),
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    // Instances starting together on PostgreSQL: one converts, the others wait here, then find it done.
    await lockForTransaction(trx, 'privacy-backfill');
    const done = await trx.selectFrom('privacy_backfills').select('name').where('name', '=', PSEUDONYM_BACKFILL).executeTakeFirst();
    if (done) return false;
    const experiments = await trx.selectFrom('experiment_assignments').select('experiment_id').distinct().execute();
    for (const { experiment_id } of experiments) await keepCounts(trx, experiment_id, privacy);
    const unplaced = await sql<{ user_id: string }>`SELECT DISTINCT user_id FROM experiment_assignments WHERE instance IS NULL`.execute(
      trx,
    );
    for (const { user_id } of unplaced.rows) {
      await sql`UPDATE experiment_assignments SET instance = ${instanceOfUser(user_id)} WHERE user_id = ${user_id} AND instance IS NULL`.execute(
        trx,
      );
    }
    for (const table of PSEUDONYMISED_TABLES) {
      const users = await sql<{ user_id: string }>`SELECT DISTINCT user_id FROM ${sql.table(table)}`.execute(trx);
      for (const { user_id } of users.rows) {
        await sql`UPDATE ${sql.table(table)} SET user_id = ${privacy.pseudonym(user_id)} WHERE user_id = ${user_id}`.execute(trx);
      }
    }
    await trx.insertInto('privacy_backfills').values({ name: PSEUDONYM_BACKFILL, done_at_ms: nowMs }).execute();
    return true;
  });
}

/** Makes the counts rows of one experiment's (raw-id) assignments, a page of users at a time. */
async function keepCounts(trx: Kysely<Database>, experimentId: number, privacy: Pick<PrivacyPolicy, 'pseudonym'>): Promise<void> {
  let after: string | null = null;
  for (;;) {
    let query = trx
      .selectFrom('experiment_assignments')
      .select(['user_id', 'variant'])
      .where('experiment_id', '=', experimentId)
      .orderBy('user_id')
      .limit(PAGE);
    if (after !== null) query = query.where('user_id', '>', after);
    const page = await query.execute();
    const first = page[0];
    const last = page.at(-1);
    if (!first || !last) return;
    const range = [trx, experimentId, first.user_id, last.user_id] as const;
    const byUser = (rows: readonly UserCountRow[]) => new Map(rows.map((row) => [row.user_id, Number(row.value)]));
    const interactions = byUser(await interactionCounts(...range));
    const pre = byUser(await preEngagementCounts(...range));
    const cold = byUser(await coldUsers(...range));
    const feedback = new Map((await feedbackCounts(...range)).map((row) => [row.user_id, row]));
    const rows = page.map((row) => ({
      experiment_id: experimentId,
      user_id: privacy.pseudonym(row.user_id),
      variant: row.variant,
      bucket: bucketOf(row.user_id, experimentId),
      cold: cold.get(row.user_id) ?? 0,
      pre_engagement: pre.get(row.user_id) ?? 0,
      interactions: interactions.get(row.user_id) ?? 0,
      feedback_positive: Number(feedback.get(row.user_id)?.positive ?? 0),
      feedback_negative: Number(feedback.get(row.user_id)?.negative ?? 0),
    }));
    for (let i = 0; i < rows.length; i += 100) {
      await trx
        .insertInto('experiment_user_counts')
        .values(rows.slice(i, i + 100))
        .onConflict((oc) => oc.columns(['experiment_id', 'user_id']).doNothing())
        .execute();
    }
    if (page.length < PAGE) return;
    after = last.user_id;
  }
}
