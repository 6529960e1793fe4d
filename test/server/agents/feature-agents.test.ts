/**
 * The feature agents on a real database: the candidate pool refresh picks up posts written
 * behind the ranking state's back (another process, or a post whose engagement grew after
 * it left the pool), and the cache warmer builds the profiles of the busiest recent users.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../server/platform/db/connection.js';
import { postEngagerGroups } from '../../../server/interactions/engagers.service.js';
import { accountCreatedAtByInstanceIds } from '../../../server/posts/post-identity.repository.js';
import { InteractionService } from '../../../server/interactions/interaction.service.js';
import { candidatePoolRefreshAgent } from '../../../server/posts/candidate-pool.agent.js';
import { candidatePosts, PostService, writeStatuses } from '../../../server/posts/post.service.js';
import { TrendingService } from '../../../server/posts/trending.service.js';
import { trendingRefreshAgent } from '../../../server/posts/trending.agent.js';
import { loadRankingState, type RankingState } from '../../../server/ranking-state/ranking-state.service.js';
import { cacheWarmerAgent } from '../../../server/recommendations/cache-warmer.agent.js';
import { mostActiveRecentUsers } from '../../../server/interactions/interaction.repository.js';
import { loadProfile } from '../../../server/recommendations/profile-loader.js';
import type { AgentRunContext } from '../../../server/platform/agents/agent-runner.js';
import { insertEngagements } from '../../helpers/engagements.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/test-database.js';

let database: DatabaseHandle;
let opened: TestDatabase;
let state: RankingState;
let posts: PostService;
let interactions: InteractionService;

const context = (): AgentRunContext => ({ signal: new AbortController().signal, now: () => Date.now() });

beforeEach(async () => {
  opened = await openTestDatabase();
  database = opened.database;
  state = await loadRankingState((limits) => candidatePosts(database.db, limits));
  posts = new PostService(database.db, state);
  interactions = new InteractionService(database.db, state, posts);
});
afterEach(async () => {
  await opened.close();
});

/** Writes statuses the way another process would: rows only, nothing announced to this state. */
async function writeBehindTheState(n: number[]): Promise<void> {
  await writeStatuses(
    database.db,
    n.map((i) => makeStatus({ n: i, favourites: i })),
    Date.now(),
    { keepOriginals: false },
  );
}

describe('candidate_pool_refresh', () => {
  const refresh = () => candidatePoolRefreshAgent(state, database.db, 900).run(context());

  it('adds posts the state was never told about and reports what changed', async () => {
    await posts.ingest([makeStatus({ n: 1 })]);
    await writeBehindTheState([2, 3]);
    expect(state.index.get(postId(2))).toBeUndefined();
    expect(await refresh()).toEqual({
      summary: 'candidate pool: 3 posts (2 added, 0 counters updated, 0 deleted)',
      details: { pool_size: 3, added: 2, counts_updated: 0, deleted: 0 },
    });
    expect(state.index.get(postId(2))).toBeDefined();
    expect(state.index.get(postId(3))).toBeDefined();
  });

  it('updates counters that changed behind the state, keeping cached profiles', async () => {
    await posts.ingest([makeStatus({ n: 1 }), makeStatus({ n: 2 })]);
    await interactions.record({ userId: 'reader', postId: postId(1), actionType: 'favorite' });
    await loadProfile({ db: database.db, state, posts, interactions }, 'reader');
    await database.db.updateTable('posts').set({ favourites_count: 40 }).where('id', '=', postId(2)).execute();
    expect(await refresh()).toMatchObject({ details: { added: 0, counts_updated: 1, deleted: 0 } });
    expect(state.index.get(postId(2))!.favourites).toBe(40);
    expect(state.cachedProfile('reader')).toBeDefined();
    expect(await refresh()).toMatchObject({ details: { counts_updated: 0 } });
  });

  it('drops posts deleted behind the state', async () => {
    await posts.ingest([makeStatus({ n: 1 }), makeStatus({ n: 2 })]);
    await database.db.deleteFrom('posts').where('id', '=', postId(2)).execute();
    expect(await refresh()).toMatchObject({ details: { pool_size: 1, added: 0, deleted: 1 } });
    expect(state.index.get(postId(2))).toBeUndefined();
  });
});

describe('trending_refresh', () => {
  it('recomputes the snapshot from the stored interactions', async () => {
    await writeBehindTheState([1, 2, 3, 4]);
    // Post n favourited by n readers, written as rows (another process's); post 4 by none.
    await insertEngagements(
      database.db,
      [1, 2, 3].map((n) => ({ postId: postId(n), userIds: Array.from({ length: n }, (_, k) => `reader${k}`) })),
    );
    const trending = new TrendingService(database.db, (sinceMs) =>
      postEngagerGroups(database.db, sinceMs, (pairs) => accountCreatedAtByInstanceIds(database.db, pairs)),
    );
    const report = await trendingRefreshAgent(trending, 60).run(context());
    expect(report).toMatchObject({ details: { trending_posts: 3 } });
    expect((await trending.current()).posts.map((p) => p.id)).toEqual([postId(3), postId(2), postId(1)]);
  });
});

describe('cache_warmer', () => {
  beforeEach(async () => {
    await posts.ingest([1, 2, 3, 4].map((n) => makeStatus({ n, author: `author${n}` })));
    // busy: 3 interactions, steady: 2, quiet: 1.
    for (const [userId, count] of [
      ['busy', 3],
      ['steady', 2],
      ['quiet', 1],
    ] as const) {
      for (let i = 1; i <= count; i += 1) await interactions.record({ userId, postId: postId(i), actionType: 'favorite' });
    }
  });

  it('ranks users by their share of the newest interactions', async () => {
    expect(await mostActiveRecentUsers(database.db, 1000, 10)).toEqual(['busy', 'steady', 'quiet']);
    // Counting only the newest interaction (quiet's, written last) finds only quiet.
    expect(await mostActiveRecentUsers(database.db, 1, 10)).toEqual(['quiet']);
  });

  it('builds the busiest users profiles, bounded, and skips the ones already cached', async () => {
    const sources = { db: database.db, state, posts, interactions };
    const agent = cacheWarmerAgent(sources, { intervalSeconds: 900, maxUsers: 2 });
    expect(state.cachedProfile('busy')).toBeUndefined();
    expect(await agent.run(context())).toMatchObject({ details: { active_users: 2, profiles_built: 2 } });
    expect(state.cachedProfile('busy')).toBeDefined();
    expect(state.cachedProfile('steady')).toBeDefined();
    expect(state.cachedProfile('quiet')).toBeUndefined();
    expect(await agent.run(context())).toMatchObject({ details: { active_users: 2, profiles_built: 0 } });
  });

  it('lets other work run between profiles instead of holding the event loop for the whole run', async () => {
    const users = Array.from({ length: 25 }, (_, i) => `reader${String(i).padStart(2, '0')}`);
    for (const userId of users) await interactions.record({ userId, postId: postId(1), actionType: 'favorite' });
    const sources = { db: database.db, state, posts, interactions };
    const agent = cacheWarmerAgent(sources, { intervalSeconds: 900, maxUsers: 30 });
    const cachedReaders = () => users.filter((userId) => state.cachedProfile(userId) !== undefined).length;
    // Snapshots taken by a chain of callbacks, one per event-loop turn, while the run goes on.
    const seen: number[] = [];
    let finished = false;
    const snapshot = () => {
      seen.push(cachedReaders());
      if (!finished) setImmediate(snapshot);
    };
    setImmediate(snapshot);
    const report = await agent.run(context());
    finished = true;
    expect(report).toMatchObject({ details: { profiles_built: 28 } });
    // Some turn saw the run part-way: some readers built, not all.
    expect(seen.some((n) => n > 0 && n < users.length)).toBe(true);
  });

  it('stops between users once its signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const agent = cacheWarmerAgent({ db: database.db, state, posts, interactions }, { intervalSeconds: 900 });
    expect(await agent.run({ signal: controller.signal, now: () => Date.now() })).toMatchObject({ details: { profiles_built: 0 } });
    expect(state.cachedProfile('busy')).toBeUndefined();
  });
});
