/**
 * Each tracking level × each write path: after the write, the database holds exactly what
 * the level allows (issue 12), checked table by table. Users: `fu` at full, `lu` at
 * limited, `nu` at none.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../../src/errors.js';
import { bucketOf } from '../../../src/experiments/assignment.js';
import type { TrackingLevel } from '../../../src/privacy/tracking-level.js';
import type { StatusInput } from '../../../src/schemas/post.schema.js';
import { interactionLogger } from '../../../server/proxy/proxy-interactions.js';
import type { ForwardedEvent } from '../../../server/proxy/proxy.routes.js';
import { makeStatus } from '../../helpers/mastodon-fixtures.js';
import { countWhere, enforcement, POSTS, rowsOf, type Enforcement } from './enforcement-fixture.js';

const LEVELS: Record<string, TrackingLevel> = { fu: 'full', lu: 'limited', nu: 'none' };
const USERS = Object.keys(LEVELS);
const [P1, P2, P3] = POSTS as [string, string, string];

let e: Enforcement;
beforeEach(async () => {
  e = await enforcement(LEVELS);
});
afterEach(async () => e.close());

const count = (table: string, column: string, value: string) => countWhere(e.database, table, column, value);

/** Serves `posts` to `user` as the recommendations feature would, after the runtime's choice. */
async function serve(user: string, posts: readonly string[] = [P1, P2, P3]): Promise<void> {
  const choice = await e.runtime.choose(user);
  await e.recorder.record({
    userId: user,
    choice,
    items: posts.map((postId, i) => ({ postId, score: 1 - i / 10, reasonCode: 'HIGH_ENGAGEMENT' })),
    latencyMs: 12,
    cacheHit: false,
  });
}

describe('interactions', () => {
  it('are stored with their signals for full and limited users, and not at all for none', async () => {
    for (const user of USERS) {
      const result = await e.interactions.record({ userId: user, postId: P1, actionType: 'favorite' });
      expect(result.stored).toBe(user !== 'nu');
      expect(result.created).toBe(user !== 'nu');
    }
    for (const user of ['fu', 'lu']) {
      expect(await count('interactions', 'user_id', user)).toBe(1);
      expect(await count('user_affinities', 'user_id', user)).toBeGreaterThan(0);
      expect(await count('user_interests', 'user_id', user)).toBe(1);
    }
    for (const table of ['interactions', 'user_affinities', 'user_interests']) expect(await count(table, 'user_id', 'nu')).toBe(0);
    // The post's counter moved for the two stored favourites only.
    expect((await e.posts.counts(P1)).favourites_count).toBe(2);
    // The ranking state heard of the stored signals only.
    expect(e.state.cachedProfile('nu')).toBeUndefined();
  });

  it('still answer 404 for an unknown post at none', async () => {
    await expect(e.interactions.record({ userId: 'nu', postId: 'nope', actionType: 'favorite' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('added to the experiment counts of enrolled users, and taken out again by an undo', async () => {
    for (const user of USERS) await e.runtime.choose(user);
    for (const user of USERS) await e.interactions.record({ userId: user, postId: P2, actionType: 'reblog' });
    const counts = await rowsOf(e.database, 'experiment_user_counts');
    expect(counts.map((row) => [row.user_id, Number(row.interactions)]).sort()).toEqual(
      [
        [e.privacy.pseudonym('fu'), 1],
        [e.privacy.pseudonym('lu'), 1],
      ].sort(),
    );
    await e.interactions.undo('fu', P2, 'reblog');
    const after = await rowsOf(e.database, 'experiment_user_counts');
    expect(Number(after.find((row) => row.user_id === e.privacy.pseudonym('fu'))?.interactions)).toBe(0);
  });
});

describe('feedback and preferences', () => {
  it('store feedback for full and limited users only', async () => {
    for (const user of USERS) {
      const result = await e.feedback.record(user, P1, 'more');
      expect(result.stored).toBe(user !== 'nu');
      expect(result.feedback).toMatchObject({ user_id: user, post_id: P1, feedback: 'more' });
    }
    expect(await count('feedback', 'user_id', 'fu')).toBe(1);
    expect(await count('feedback', 'user_id', 'lu')).toBe(1);
    expect(await count('feedback', 'user_id', 'nu')).toBe(0);
    expect(await count('user_affinities', 'user_id', 'nu')).toBe(0);
  });

  it('store explicit preferences for full and limited users only, answering with them either way', async () => {
    for (const user of USERS) {
      const answer = await e.feedback.updatePreferences({ user_id: user, muted_tags: ['Spoilers'] });
      expect(answer.muted_tags).toEqual(['spoilers']);
    }
    expect(await count('user_preferences', 'user_id', 'fu')).toBe(1);
    expect(await count('user_preferences', 'user_id', 'lu')).toBe(1);
    expect(await count('user_preferences', 'user_id', 'nu')).toBe(0);
  });
});

describe('proxied interactions', () => {
  const confirmed = (userId: string, status: { id?: string }, verb: string): ForwardedEvent => ({
    method: 'POST',
    path: `/api/v1/statuses/${status.id}/${verb}`,
    identity: { source: 'social', userId } as unknown as ForwardedEvent['identity'],
    instance: {} as ForwardedEvent['instance'],
    response: { status: 200, body: Buffer.from(JSON.stringify(status)) } as unknown as ForwardedEvent['response'],
  });

  it('are logged for full and limited users, not for none (no interaction, no status stored)', async () => {
    const storedStatuses: string[] = [];
    const log = interactionLogger({
      interactions: e.interactions,
      // The instance's ids are taken as the service's own here (stored through the posts API).
      postIdFor: async (_instance, localId) => ((await e.posts.statusesByIds([localId])).has(localId) ? localId : undefined),
      storeStatus: async (_instance, status) => {
        storedStatuses.push(status.id as string);
        await e.posts.ingest([status as unknown as StatusInput]);
        return status.id as string;
      },
      mayStore: () => true,
      privacy: e.privacy,
    });
    const known = { id: P3 };
    const unknown = makeStatus({ n: 50, author: 'remote' });
    for (const user of ['nu@x.test', 'lu@x.test', 'fu@x.test']) {
      e.privacy.set(user, LEVELS[user.slice(0, 2)] as TrackingLevel);
      await log(confirmed(user, known, 'favourite'));
      await log(confirmed(user, unknown, 'bookmark'));
    }
    expect(await count('interactions', 'user_id', 'fu@x.test')).toBe(2);
    expect(await count('interactions', 'user_id', 'lu@x.test')).toBe(2);
    expect(await count('interactions', 'user_id', 'nu@x.test')).toBe(0);
    // The unknown post was stored on behalf of the limited user (the first allowed to), never of the none user.
    expect(storedStatuses).toEqual([unknown.id]);
  });
});

describe('experiment assignments', () => {
  it('enrol full and limited users under their pseudonym with their bucket, never none users', async () => {
    const choices = Object.fromEntries(await Promise.all(USERS.map(async (user) => [user, await e.runtime.choose(user)] as const)));
    expect(choices.nu?.algorithm).toBe('default');
    expect(choices.nu?.enrolment).toBeUndefined();
    const assignments = await rowsOf(e.database, 'experiment_assignments');
    expect(assignments.map((row) => row.user_id).sort()).toEqual([e.privacy.pseudonym('fu'), e.privacy.pseudonym('lu')].sort());
    const counts = await rowsOf(e.database, 'experiment_user_counts');
    for (const user of ['fu', 'lu']) {
      const row = counts.find((r) => r.user_id === e.privacy.pseudonym(user));
      expect(row).toMatchObject({ variant: choices[user]?.enrolment?.variant, bucket: bucketOf(user, e.experimentId), cold: 1 });
    }
    // Asked again, the same enrolment (found by pseudonym), and still no row for none.
    e.runtime.invalidate();
    for (const user of USERS) expect((await e.runtime.choose(user)).enrolment).toEqual(choices[user]?.enrolment);
    expect(await rowsOf(e.database, 'experiment_assignments')).toHaveLength(2);
  });
});

describe('impressions', () => {
  it('are rows for full users, a count for limited users, nothing for none', async () => {
    for (const user of USERS) await serve(user);
    expect(e.recorderErrors).toEqual([]);
    const impressions = await rowsOf(e.database, 'experiment_impressions');
    expect(impressions).toHaveLength(3);
    expect(new Set(impressions.map((row) => row.user_id))).toEqual(new Set([e.privacy.pseudonym('fu')]));
    const counts = await rowsOf(e.database, 'experiment_user_counts');
    const impressionsOf = (user: string) => Number(counts.find((row) => row.user_id === e.privacy.pseudonym(user))?.impressions);
    expect(impressionsOf('lu')).toBe(3);
    expect(impressionsOf('fu')).toBe(0);
    expect(counts).toHaveLength(2);
    // Per-variant performance counters (no user ids) count both enrolled users' requests.
    const requests = (await rowsOf(e.database, 'experiment_performance')).reduce((sum, row) => sum + Number(row.requests), 0);
    expect(requests).toBe(2);
  });
});

describe('analytics events', () => {
  it('are rows for full users, counts for limited users, and nothing for none', async () => {
    for (const user of USERS) await serve(user);
    const at = new Date(e.clock.now).toISOString();
    const batch = USERS.flatMap((user) => [
      { type: 'session_start' as const, user_id: user, session_id: `s-${user}`, timestamp: at },
      { type: 'click' as const, user_id: user, post_id: P1, session_id: `s-${user}`, timestamp: at },
      { type: 'view' as const, user_id: user, post_id: P2, timestamp: at },
      { type: 'session_end' as const, user_id: user, session_id: `s-${user}`, timestamp: new Date(e.clock.now + 30_000).toISOString() },
    ]);
    e.clock.now += 60_000;
    const result = await e.analytics.record(batch);
    expect(result).toMatchObject({ accepted: 8, rejected: 0, not_stored: 4 });
    const events = await rowsOf(e.database, 'analytics_events');
    expect(events).toHaveLength(4);
    expect(new Set(events.map((row) => row.user_id))).toEqual(new Set([e.privacy.pseudonym('fu')]));
    const counts = await rowsOf(e.database, 'experiment_user_counts');
    const limited = counts.find((row) => row.user_id === e.privacy.pseudonym('lu'));
    expect(limited).toMatchObject({ impressions: 3, clicks: 1, sessions: 1, session_ms: 30_000, bounces: 0 });
    const full = counts.find((row) => row.user_id === e.privacy.pseudonym('fu'));
    expect(full).toMatchObject({ clicks: 0, sessions: 0 });
    // A complete session leaves no open-session row behind.
    expect(await rowsOf(e.database, 'experiment_open_sessions')).toEqual([]);
  });

  it("refuse a limited user's clicks beyond their impressions, as a full user's beyond theirs", async () => {
    for (const user of ['fu', 'lu']) await serve(user, [P1]);
    const clicks = ['fu', 'lu'].flatMap((user) => [
      { type: 'click' as const, user_id: user, post_id: P1 },
      { type: 'click' as const, user_id: user, post_id: P1 },
    ]);
    const result = await e.analytics.record(clicks);
    expect(result).toMatchObject({ accepted: 2, rejected: 2, rejected_by_reason: { duplicate_click: 2 } });
    const limited = (await rowsOf(e.database, 'experiment_user_counts')).find((row) => row.user_id === e.privacy.pseudonym('lu'));
    expect(Number(limited?.clicks)).toBe(1);
  });
});
