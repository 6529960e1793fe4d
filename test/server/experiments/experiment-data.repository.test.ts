/**
 * The algorithm and session aggregates straight from SQL, on hand-made rows whose
 * answers are counted by hand below (the end-to-end test covers them only as served).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../server/platform/db/connection.js';
import { clickCounts, impressionAggregates, scoreBins, sessionRows } from '../../../server/experiments/experiment-data.repository.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/test-database.js';

let database: DatabaseHandle;
let opened: TestDatabase;
const EXPERIMENT = 1;

/** An ACTIVE experiment row, active since t = 1000 ms. */
async function insertActiveExperiment(db: DatabaseHandle['db'], id: number, name: string): Promise<void> {
  const now = new Date(0).toISOString();
  await db
    .insertInto('experiments')
    .values({
      id,
      name,
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
  await db.insertInto('experiment_active_periods').values({ experiment_id: id, started_at_ms: 1000, ended_at_ms: null }).execute();
}

beforeAll(async () => {
  opened = await openTestDatabase();
  database = opened.database;
  const db = database.db;
  await insertActiveExperiment(db, EXPERIMENT, 'e');
  await db
    .insertInto('experiment_assignments')
    .values([
      { experiment_id: EXPERIMENT, user_id: 'u1', variant: 'A', assigned_at_ms: 1000 },
      { experiment_id: EXPERIMENT, user_id: 'u2', variant: 'B', assigned_at_ms: 1000 },
    ])
    .execute();
  const impression = (user_id: string, variant: string, post_id: string, score: number, reason_code: string) => ({
    experiment_id: EXPERIMENT,
    variant,
    user_id,
    post_id,
    score,
    reason_code,
    served_at_ms: 1500,
  });
  await db
    .insertInto('experiment_impressions')
    .values([
      impression('u1', 'A', 'p1', 0.95, 'SEMANTIC_MATCH'),
      impression('u1', 'A', 'p2', 0.5, 'SEMANTIC_MATCH'),
      impression('u1', 'A', 'p3', 1.0, 'AUTHOR_INTERACTION'),
      impression('u1', 'A', 'p1', 0.9, 'SEMANTIC_MATCH'), // p1 served twice
      impression('u2', 'B', 'p4', 0.05, 'SEMANTIC_MATCH'),
      impression('u2', 'B', 'p5', 0.33, 'HIGH_ENGAGEMENT'),
    ])
    .execute();
  const event = (user_id: string, type: string, at: number, post_id: string | null = null, session_id: string | null = null) => ({
    type,
    user_id,
    post_id,
    session_id,
    occurred_at_ms: at,
    received_at_ms: at,
  });
  await db
    .insertInto('analytics_events')
    .values([
      event('u1', 'click', 2000, 'p1', 's1'), // counts: semantic, clicked in the window
      event('u1', 'click', 500, 'p2'), // before the assignment: does not count
      event('u2', 'click', 3000, 'p4'), // counts
      event('u2', 'click', 3000, 'p5'), // a click, but not on a semantic match
      event('u1', 'session_start', 1900, null, 's1'),
      event('u1', 'click', 2100, 'p3', 's1'),
      event('u1', 'session_end', 2500, null, 's1'),
    ])
    .execute();
});
afterAll(async () => opened.close());

describe('experiment data aggregates', () => {
  it('counts impressions, scores, distinct posts and clicked semantic matches per variant', async () => {
    const rows = await impressionAggregates(database.db, EXPERIMENT);
    const byVariant = Object.fromEntries(rows.map((r) => [r.variant, r]));
    expect(byVariant.A).toMatchObject({ impressions: 4, distinct_per_user_sum: 3, semantic_impressions: 3, semantic_clicked: 2 });
    expect(byVariant.A!.score_sum).toBeCloseTo(0.95 + 0.5 + 1.0 + 0.9, 12);
    expect(byVariant.B).toMatchObject({ impressions: 2, distinct_per_user_sum: 2, semantic_impressions: 1, semantic_clicked: 1 });
  });

  it('bins scores into deciles 0..9, a score of 1.0 in the last', async () => {
    const bins = (await scoreBins(database.db, EXPERIMENT)).map((r) => [r.variant, Number(r.bin), r.count]);
    expect(bins.sort()).toEqual([
      ['A', 5, 1],
      ['A', 9, 3],
      ['B', 0, 1],
      ['B', 3, 1],
    ]);
  });

  it('gives each session its start, end and clicks', async () => {
    expect(await sessionRows(database.db, EXPERIMENT, 'u1', 'u2')).toEqual([
      { user_id: 'u1', session_id: 's1', started_ms: 1900, ended_ms: 2500, clicks: 2 },
    ]);
  });
});

describe('only events that can be true count', () => {
  const OTHER = 2;
  const HOUR = 3_600_000;
  let claimed: number;

  beforeAll(async () => {
    const db = database.db;
    await insertActiveExperiment(db, OTHER, 'f');
    await db
      .insertInto('experiment_assignments')
      .values({ experiment_id: OTHER, user_id: 'v1', variant: 'A', assigned_at_ms: 1000 })
      .execute();
    const served = await db
      .insertInto('experiment_impressions')
      .values({
        experiment_id: OTHER,
        variant: 'A',
        user_id: 'v1',
        post_id: 'p1',
        score: 0.5,
        reason_code: 'HIGH_ENGAGEMENT',
        served_at_ms: 1500,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    claimed = served.id;
    const event = (type: string, at: number, extra: object = {}) => ({
      type,
      user_id: 'v1',
      post_id: null,
      session_id: null,
      occurred_at_ms: at,
      received_at_ms: at,
      ...extra,
    });
    await db
      .insertInto('analytics_events')
      .values([
        event('click', 2000, { post_id: 'p1', impression_id: claimed, session_id: 'short' }), // counts
        event('click', 2001, { post_id: 'p1', rejected_reason: 'duplicate_click', session_id: 'refused' }),
        event('click', 2002, { post_id: 'p2', rejected_reason: 'no_impression' }),
        event('click', 2003, { post_id: 'p1' }), // accepted but claims no impression (not written by the analytics feature): no click
        event('session_start', 2000, { session_id: 'short' }),
        event('session_end', 62_000, { session_id: 'short' }),
        event('session_start', 2000, { session_id: 'long' }),
        event('session_end', 2000 + 13 * HOUR, { session_id: 'long' }), // over 12 h, written around the rules: never a session
        event('session_start', 2000, { session_id: 'backwards' }),
        event('session_end', 1999, { session_id: 'backwards' }),
        event('session_start', 2000, { session_id: 'refused' }),
        event('session_end', 3000, { session_id: 'refused', rejected_reason: 'session_too_long' }),
      ])
      .execute();
  });

  it('counts as clicks only impressions claimed by an accepted click, so clicks never exceed impressions', async () => {
    expect(await clickCounts(database.db, OTHER, 'v1', 'v1')).toEqual([{ user_id: 'v1', value: 1 }]);
  });

  it('leaves out refused events and sessions that end before they start or last over 12 h', async () => {
    expect(await sessionRows(database.db, OTHER, 'v1', 'v1')).toEqual([
      { user_id: 'v1', session_id: 'refused', started_ms: 2000, ended_ms: null, clicks: 0 },
      { user_id: 'v1', session_id: 'short', started_ms: 2000, ended_ms: 62_000, clicks: 1 },
    ]);
  });
});
