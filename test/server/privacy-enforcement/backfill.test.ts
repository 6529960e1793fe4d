/**
 * The one-time start-up conversion of rows from before pseudonyms: raw-id assignments,
 * impressions and events plus raw-id interactions and feedback, counted by hand below, read
 * back through the analysis after pseudonymiseStoredIds with the very same numbers, keyed
 * by pseudonym, with the bucket and instance of the raw id; no raw id is left; a second run
 * changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketOf } from '../../../src/experiments/assignment.js';
import { PSEUDONYMISED_TABLES, pseudonymiseStoredIds } from '../../../server/experiments/events/privacy-backfill.js';
import { iterateEnrolledUsers, type EnrolledUser } from '../../../server/experiments/user-counts.service.js';
import { enforcement, POSTS, rowsOf, type Enforcement } from './enforcement-fixture.js';

const DAY = 24 * 3_600_000;
const [P1, P2, P3] = POSTS as [string, string, string];
let e: Enforcement;
let start: number;
let ran: boolean;
const enrolled = new Map<string, EnrolledUser>();

beforeAll(async () => {
  e = await enforcement({}, 'full');
  const db = e.database.db;
  start = e.clock.now - 60_000;
  const assigned = start + 1_000;
  await db
    .insertInto('experiment_assignments')
    .values([
      { experiment_id: e.experimentId, user_id: 'old@a.example', variant: 'control', assigned_at_ms: assigned },
      { experiment_id: e.experimentId, user_id: 'older', variant: 'treatment', assigned_at_ms: assigned },
    ])
    .execute();
  const impression = (user_id: string, variant: string, post_id: string) => ({
    experiment_id: e.experimentId,
    variant,
    user_id,
    post_id,
    score: 0.5,
    reason_code: 'HIGH_ENGAGEMENT',
    served_at_ms: assigned + 100,
  });
  const served = await db
    .insertInto('experiment_impressions')
    .values([impression('old@a.example', 'control', P1), impression('old@a.example', 'control', P2), impression('older', 'treatment', P1)])
    .returning('id')
    .execute();
  const event = (user_id: string, type: string, at: number, extra: object = {}) => ({
    type,
    user_id,
    post_id: null,
    session_id: null,
    occurred_at_ms: at,
    received_at_ms: at,
    ...extra,
  });
  await db
    .insertInto('analytics_events')
    .values([
      event('old@a.example', 'click', assigned + 200, { post_id: P1, impression_id: served[0]!.id, session_id: 's' }),
      event('old@a.example', 'session_start', assigned + 150, { session_id: 's' }),
      event('old@a.example', 'session_end', assigned + 30_150, { session_id: 's' }),
      event('older', 'view', start - DAY), // before the assignment: 'older' is not a cold start
    ])
    .execute();
  const interaction = (id: string, user_id: string, post_id: string, at: number) => ({
    id,
    user_id,
    post_id,
    action_type: 'favorite',
    context_json: null,
    created_at: new Date(at).toISOString(),
    created_at_ms: at,
  });
  await db
    .insertInto('interactions')
    .values([
      interaction('i1', 'old@a.example', P1, assigned + 300), // in the window
      interaction('i2', 'old@a.example', P2, assigned + 400), // in the window
      interaction('i3', 'older', P1, start - 2 * DAY), // pre-period
      interaction('i4', 'older', P2, start - 3 * DAY), // pre-period
      interaction('i5', 'older', P3, start - 30 * DAY), // before the pre-period
    ])
    .execute();
  const feedback = (id: string, user_id: string, value: string, at: number) => ({
    id,
    user_id,
    post_id: P3,
    feedback: value,
    created_at: new Date(at).toISOString(),
    created_at_ms: at,
  });
  await db
    .insertInto('feedback')
    .values([feedback('f1', 'older', 'more', assigned + 500), feedback('f2', 'older', 'less', assigned + 600)])
    .execute();
  ran = await pseudonymiseStoredIds(db, e.privacy, e.clock.now);
  for await (const user of iterateEnrolledUsers(db, e.experimentId)) enrolled.set(user.user_id, user);
});
afterAll(async () => e.close());

describe('the pseudonym backfill', () => {
  it('gives the analysis the numbers of the raw rows, by pseudonym', () => {
    expect(ran).toBe(true);
    expect([...enrolled.keys()].sort()).toEqual([e.privacy.pseudonym('old@a.example'), e.privacy.pseudonym('older')].sort());
    expect(enrolled.get(e.privacy.pseudonym('old@a.example'))).toMatchObject({
      variant: 'control',
      instance: 'a.example',
      impressions: 2,
      clicks: 1,
      sessions: 1,
      session_seconds: 30,
      bounces: 0,
      interactions: 2,
      feedback_positive: 0,
      feedback_negative: 0,
      pre_engagement: 0,
      cold_start: true,
    });
    expect(enrolled.get(e.privacy.pseudonym('older'))).toMatchObject({
      variant: 'treatment',
      instance: 'local',
      impressions: 1,
      clicks: 0,
      sessions: 0,
      interactions: 0,
      feedback_positive: 1,
      feedback_negative: 1,
      pre_engagement: 2,
      cold_start: false,
    });
  });

  it('records the bucket of the raw id', async () => {
    const counts = await rowsOf(e.database, 'experiment_user_counts');
    for (const user of ['old@a.example', 'older']) {
      expect(counts.find((row) => row.user_id === e.privacy.pseudonym(user))?.bucket).toBe(bucketOf(user, e.experimentId));
    }
  });

  it('leaves no raw id in the analytics tables, and runs once', async () => {
    for (const table of PSEUDONYMISED_TABLES) {
      const holders = (await rowsOf(e.database, table)).map((row) => row.user_id);
      expect(
        holders.filter((id) => id === 'old@a.example' || id === 'older'),
        table,
      ).toEqual([]);
    }
    expect(await pseudonymiseStoredIds(e.database.db, e.privacy, e.clock.now)).toBe(false);
    expect((await rowsOf(e.database, 'experiment_assignments')).map((row) => row.user_id).sort()).toEqual(
      [e.privacy.pseudonym('old@a.example'), e.privacy.pseudonym('older')].sort(),
    );
  });
});
