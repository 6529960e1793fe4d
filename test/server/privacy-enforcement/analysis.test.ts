/**
 * The experiment analysis under pseudonyms and tracking levels: after a mixed workload of
 * full, limited and none users (pre-period interactions, served lists, clicks, sessions,
 * interactions and an undo, feedback), the per-user counts the analysis and the export read
 * are exactly the ones sent — limited users' aggregates included — keyed by pseudonym; the
 * none user is nowhere; and no raw user id is left in any analytics table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingLevel } from '../../../src/privacy/tracking-level.js';
import { PSEUDONYMISED_TABLES } from '../../../server/experiments/events/privacy-backfill.js';
import { iterateEnrolledUsers, type EnrolledUser } from '../../../server/experiments/user-counts.service.js';
import { enforcement, POSTS, rowsOf, type Enforcement } from './enforcement-fixture.js';

const DAY = 24 * 3_600_000;
const LEVELS: Record<string, TrackingLevel> = {
  'ann@full.example': 'full',
  'ben@full.example': 'full',
  'cat@full.example': 'full',
  'dan@limited.example': 'limited',
  'eve@limited.example': 'limited',
  'fay@limited.example': 'limited',
  'gus@none.example': 'none',
};
const USERS = Object.keys(LEVELS);
const ANALYTICS_TABLES = [...PSEUDONYMISED_TABLES, 'experiment_user_counts', 'experiment_open_sessions'];

let e: Enforcement;
const expected = new Map<string, Partial<EnrolledUser>>();
let enrolled: Map<string, EnrolledUser>;

beforeAll(async () => {
  e = await enforcement(LEVELS);
  const start = e.clock.now - 60_000;
  for (const [k, user] of USERS.entries()) {
    // Before the experiment: one interaction in its 14-day pre-period, one before that.
    await e.interactions.record({ userId: user, postId: POSTS[7]!, actionType: 'favorite' }, start - DAY);
    await e.interactions.record({ userId: user, postId: POSTS[6]!, actionType: 'favorite' }, start - 20 * DAY);
    const choice = await e.runtime.choose(user);
    await e.recorder.record({
      userId: user,
      choice,
      items: POSTS.slice(0, 4).map((postId, i) => ({ postId, score: 0.9 - i / 10, reasonCode: 'HIGH_ENGAGEMENT' })),
      latencyMs: 10,
      cacheHit: false,
    });
    const clicks = k % 3;
    const session = `session-${k}`;
    e.clock.now += 1_000;
    const at = (offsetMs: number) => new Date(e.clock.now + offsetMs).toISOString();
    await e.analytics.record([
      { type: 'session_start', user_id: user, session_id: session, timestamp: at(0) },
      ...POSTS.slice(0, clicks).map((postId) => ({
        type: 'click' as const,
        user_id: user,
        post_id: postId,
        session_id: session,
        timestamp: at(1_000),
      })),
      { type: 'session_end', user_id: user, session_id: session, timestamp: at(40_000) },
    ]);
    // In the experiment: 1 + k % 2 interactions kept, one more made and undone; feedback.
    for (let i = 0; i < 1 + (k % 2); i++) {
      await e.interactions.record({ userId: user, postId: POSTS[i]!, actionType: 'reblog' }, e.clock.now + 2_000);
    }
    await e.interactions.record({ userId: user, postId: POSTS[5]!, actionType: 'bookmark' }, e.clock.now + 3_000);
    // Nothing was stored for the none user: their undo finds nothing (404).
    if (LEVELS[user] !== 'none') await e.interactions.undo(user, POSTS[5]!, 'bookmark');
    if (k % 2 === 1) await e.feedback.record(user, POSTS[2]!, 'more', e.clock.now + 4_000);
    await e.feedback.record(user, POSTS[3]!, 'less', e.clock.now + 4_000);
    expected.set(user, {
      variant: choice.enrolment?.variant as string,
      impressions: 4,
      clicks,
      sessions: 1,
      session_seconds: 40,
      bounces: clicks === 0 ? 1 : 0,
      interactions: 1 + (k % 2),
      feedback_positive: k % 2,
      feedback_negative: 1,
      pre_engagement: 1,
      cold_start: false,
    });
  }
  await e.recorder.drain();
  enrolled = new Map();
  for await (const user of iterateEnrolledUsers(e.database.db, e.experimentId, 2)) enrolled.set(user.user_id, user);
});
afterAll(async () => e.close());

describe('the analysis under tracking levels and pseudonyms', () => {
  it('reads every enrolled full and limited user, by pseudonym, and never the none user', () => {
    const enrolledUsers = USERS.filter((user) => LEVELS[user] !== 'none');
    expect([...enrolled.keys()].sort()).toEqual(enrolledUsers.map((user) => e.privacy.pseudonym(user)).sort());
  });

  it('gives each user exactly the counts that were sent, limited users included', () => {
    for (const user of USERS.filter((u) => LEVELS[u] !== 'none')) {
      expect({ user, ...enrolled.get(e.privacy.pseudonym(user)) }).toMatchObject({ user, ...expected.get(user) });
    }
  });

  it('keeps event rows for full users only', async () => {
    const pseudonymsOf = (level: TrackingLevel) => new Set(USERS.filter((u) => LEVELS[u] === level).map((u) => e.privacy.pseudonym(u)));
    for (const table of ['experiment_impressions', 'analytics_events']) {
      const holders = new Set((await rowsOf(e.database, table)).map((row) => row.user_id));
      expect(holders).toEqual(pseudonymsOf('full'));
    }
  });

  it('leaves no raw user id in any analytics table, and nothing at all about the none user', async () => {
    for (const table of ANALYTICS_TABLES) {
      const dump = JSON.stringify(await rowsOf(e.database, table));
      for (const user of USERS) expect(dump.includes(user.split('@')[0]!), `${user} in ${table}`).toBe(false);
      expect(dump.includes(e.privacy.pseudonym('gus@none.example')), `none user in ${table}`).toBe(false);
    }
    for (const table of ['interactions', 'feedback', 'user_affinities', 'user_interests']) {
      expect(JSON.stringify(await rowsOf(e.database, table)).includes('gus@none.example'), table).toBe(false);
    }
  });
});
