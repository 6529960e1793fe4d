/**
 * Interactions logged after the fact (`created_at` in the past, a batch import) count in
 * experiments by their own time, as live ones do: not in an experiment's counts when they
 * happened before the user's assignment, in its pre-period baseline (CUPED) when they fall in
 * it, and an undo takes back exactly what was added. Tracking levels apply as to live writes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TrackingLevel } from '../../../src/privacy/tracking-level.js';
import { enforcement, POSTS, type Enforcement } from './enforcement-fixture.js';

const LEVELS: Record<string, TrackingLevel> = { fu: 'full', lu: 'limited', nu: 'none' };
const [P1, P2, P3] = POSTS as [string, string, string];
const HOUR = 3_600_000;

let e: Enforcement;
beforeEach(async () => {
  e = await enforcement(LEVELS);
});
afterEach(async () => e.close());

async function counts(user: string): Promise<{ interactions: number; pre_engagement: number }> {
  const row = await e.database.db
    .selectFrom('experiment_user_counts')
    .select(['interactions', 'pre_engagement'])
    .where('experiment_id', '=', e.experimentId)
    .where('user_id', '=', e.privacy.pseudonym(user))
    .executeTakeFirstOrThrow();
  return { interactions: Number(row.interactions), pre_engagement: Number(row.pre_engagement) };
}

describe('back-dated interactions in experiments', () => {
  it('count by their own time: a live one in the counts, an older one in the pre-period baseline', async () => {
    // The experiment started a minute ago; the posts are an hour old.
    await e.runtime.choose('fu');
    expect(await counts('fu')).toEqual({ interactions: 0, pre_engagement: 0 });
    const now = Date.now();
    await e.interactions.recordMany(
      [
        { userId: 'fu', postId: P1, actionType: 'favorite' },
        { userId: 'fu', postId: P2, actionType: 'favorite', createdAtMs: now - HOUR / 2 },
      ],
      now,
    );
    expect(await counts('fu')).toEqual({ interactions: 1, pre_engagement: 1 });
    await e.interactions.undo('fu', P2, 'favorite');
    expect(await counts('fu')).toEqual({ interactions: 1, pre_engagement: 0 });
  });

  it('store nothing for a user at none, as live writes do', async () => {
    const results = await e.interactions.recordMany([
      { userId: 'nu', postId: P3, actionType: 'favorite', createdAtMs: Date.now() - HOUR / 2 },
      { userId: 'lu', postId: P3, actionType: 'favorite', createdAtMs: Date.now() - HOUR / 2 },
    ]);
    expect(results.map((r) => r.status)).toEqual(['not_stored', 'created']);
    expect((await e.posts.counts(P3)).favourites_count).toBe(1);
    expect(e.state.cachedProfile('nu')).toBeUndefined();
  });
});
