/**
 * CUPED's covariate straight from SQL: each enrolled user's interactions in the 14 days
 * before the experiment first became active, on hand-made rows counted by hand below.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../server/platform/db/connection.js';
import { PRE_PERIOD_MS, preEngagementCounts } from '../../../server/experiments/experiment-data.repository.js';
import { openTestDatabase, withoutForeignKeys, type TestDatabase } from '../../helpers/test-database.js';

const DAY = 24 * 60 * 60 * 1000;
const START = 30 * DAY;
let database: DatabaseHandle;
let opened: TestDatabase;

async function insertExperiment(db: DatabaseHandle['db'], id: number, periods: [number, number | null][]): Promise<void> {
  const now = new Date(0).toISOString();
  await db
    .insertInto('experiments')
    .values({
      id,
      name: `e${id}`,
      description: '',
      status: 'ACTIVE',
      traffic_percentage: 100,
      minimum_sample_size: 1,
      confidence_level: 0.95,
      primary_metric: 'click_through_rate',
      created_at: now,
      updated_at: now,
    })
    .execute();
  for (const [started, ended] of periods)
    await db.insertInto('experiment_active_periods').values({ experiment_id: id, started_at_ms: started, ended_at_ms: ended }).execute();
}

beforeAll(async () => {
  opened = await openTestDatabase();
  database = opened.database;
  await withoutForeignKeys(database.db, async (db) => {
    // Interactions reference posts and accounts; the counts only read user ids and times.
    // Paused after a day and resumed: the pre-period stays anchored at the first start.
    await insertExperiment(db, 1, [
      [START, START + DAY],
      [START + 5 * DAY, null],
    ]);
    await insertExperiment(db, 2, []);
    const assign = (experiment_id: number, user_id: string) => ({ experiment_id, user_id, variant: 'A', assigned_at_ms: START + 6 * DAY });
    await db
      .insertInto('experiment_assignments')
      .values([assign(1, 'u1'), assign(1, 'u2'), assign(1, 'u3'), assign(2, 'u1')])
      .execute();
    let next = 0;
    const interaction = (user_id: string, at: number) => ({
      id: `i${++next}`,
      user_id,
      post_id: `p${next}`,
      action_type: 'favorite',
      context_json: null,
      created_at: new Date(at).toISOString(),
      created_at_ms: at,
    });
    await db
      .insertInto('interactions')
      .values([
        interaction('u1', START - 1), // counts: just before the start
        interaction('u1', START - PRE_PERIOD_MS), // counts: the window's first millisecond
        interaction('u1', START - PRE_PERIOD_MS - 1), // too early
        interaction('u1', START), // in the experiment, not before it
        interaction('u1', START + 2 * DAY), // during the pause: not pre-experiment either
        interaction('u2', START - 5 * DAY),
        interaction('u2', START - 6 * DAY),
        interaction('u4', START - DAY), // not enrolled
      ])
      .execute();
  });
});

afterAll(() => opened.close());

describe('pre-experiment engagement (CUPED covariate)', () => {
  it('counts interactions in [first start - 14 days, first start) per enrolled user', async () => {
    const rows = await preEngagementCounts(database.db, 1, 'u1', 'u9');
    const counts = Object.fromEntries(rows.map((row) => [row.user_id, Number(row.value)]));
    expect(counts).toEqual({ u1: 2, u2: 2 });
  });

  it('keeps to the id range asked for', async () => {
    const rows = await preEngagementCounts(database.db, 1, 'u2', 'u3');
    expect(rows.map((row) => [row.user_id, Number(row.value)])).toEqual([['u2', 2]]);
  });

  it('has nothing for an experiment that never started', async () => {
    expect(await preEngagementCounts(database.db, 2, 'u1', 'u9')).toEqual([]);
  });
});
