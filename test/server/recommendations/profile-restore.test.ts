/**
 * A cold user's profile is restored from what the write paths keep (user_affinities,
 * user_interests, the ids of the posts engaged with), never replayed from the history. For
 * many users, after seeded history plus live interactions, undos and feedback, the restored
 * (cold) profile must equal the one kept in memory while those writes happened (warm): the
 * interest vector to the last bit, the affinities to 9 decimals (SQL decays them), the seen
 * posts, the signals and the ranked list; and it must agree with a replay of the whole
 * history (the profile as it was built before) up to the order of floating-point sums.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildUserProfile,
  DEFAULT_ALGORITHM_CONFIG,
  learnedPreferences,
  rankCandidates,
  type DecayedSums,
  type InteractionAction,
  type UserProfile,
} from '../../../src/ranking/index.js';
import { openSqlite, type DatabaseHandle } from '../../../server/platform/db/connection.js';
import { migrateToLatest } from '../../../server/platform/db/migrate.js';
import { seedDemo } from '../../../server/demo/demo.seed.js';
import { InteractionService } from '../../../server/interactions/interaction.service.js';
import { candidatePosts, PostService } from '../../../server/posts/post.service.js';
import { loadRankingState, type RankingState } from '../../../server/ranking-state/ranking-state.service.js';
import { FeedbackService } from '../../../server/recommendations/feedback.service.js';
import { defaultRankingPolicy } from '../../../server/recommendations/default-ranking-policy.js';
import { backfillInterests, loadProfile, type ProfileSources } from '../../../server/recommendations/profile-loader.js';
import { buildApp } from '../../../server/app.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/test-database.js';

const ANCHOR = Date.UTC(2025, 0, 10);
const USERS = 150;
let database: DatabaseHandle;
let opened: TestDatabase;
let sources: ProfileSources;
/** Each user's profile as kept in memory through the live writes. */
const warm = new Map<string, UserProfile>();

/** The profile as it was built before: every interaction and feedback replayed. */
async function replayedProfile(state: RankingState, posts: PostService, userId: string): Promise<UserProfile> {
  const db = database.db;
  const interactions = await db
    .selectFrom('interactions')
    .select(['post_id', 'action_type', 'created_at_ms'])
    .where('user_id', '=', userId)
    .orderBy('created_at_ms')
    .orderBy('id')
    .execute();
  const feedback = await db
    .selectFrom('feedback')
    .select(['post_id', 'feedback', 'created_at_ms'])
    .where('user_id', '=', userId)
    .orderBy('created_at_ms')
    .orderBy('id')
    .execute();
  const byId = await posts.rankablePosts([...interactions.map((i) => i.post_id), ...feedback.map((f) => f.post_id)]);
  return buildUserProfile(
    {
      userId,
      accountId: userId,
      interactions: interactions.map((i) => ({
        post: byId.get(i.post_id)!,
        action: i.action_type as InteractionAction,
        createdAtMs: i.created_at_ms,
      })),
      feedback: feedback.map((f) => ({
        post: byId.get(f.post_id)!,
        feedback: f.feedback as 'more' | 'less',
        createdAtMs: f.created_at_ms,
      })),
    },
    state.index,
  );
}

beforeAll(async () => {
  opened = await openTestDatabase();
  database = opened.database;
  await seedDemo(database, { authors: 40, posts: 600, users: USERS, interactions: 3000 }, ANCHOR, 7);
  const state = await loadRankingState((limits) => candidatePosts(database.db, limits));
  const posts = new PostService(database.db, state);
  const interactions = new InteractionService(database.db, state, posts);
  sources = { db: database.db, state, posts, interactions };
  const feedback = new FeedbackService(sources, defaultRankingPolicy);
  // Every profile in memory before the live writes: the writes' events update them (warm).
  for (let u = 1; u <= USERS; u++) warm.set(`user${u}`, await loadProfile(sources, `user${u}`));
  // Live writes on top of the seeded history: new interactions, undos and feedback.
  for (let u = 1; u <= USERS; u += 3) {
    const userId = `user${u}`;
    const [first, second] = await database.db
      .selectFrom('interactions')
      .select(['post_id', 'action_type'])
      .where('user_id', '=', userId)
      .limit(2)
      .execute();
    if (first) await interactions.undo(userId, first.post_id, first.action_type as InteractionAction);
    if (second) await feedback.feedback(userId, second.post_id, u % 2 === 0 ? 'more' : 'less', ANCHOR + u * 60_000);
    const [other] = await database.db
      .selectFrom('posts')
      .select('id')
      .orderBy('id')
      .offset(u * 7)
      .limit(1)
      .execute();
    if (other) await interactions.record({ userId, postId: other.id, actionType: 'reblog' }, ANCHOR + u * 120_000);
  }
  for (const [userId, profile] of warm) expect(sources.state.cachedProfile(userId)).toBe(profile);
  // Drop every profile from memory (the pool is rebuilt from the same posts: the same idf).
  await sources.state.reload();
}, 60_000);

afterAll(async () => {
  await opened.close();
});

const live = (entries: [string, number][]): Map<string, number> => new Map(entries.filter(([, v]) => Math.abs(v) > 1e-9));
const to9Decimals = (got: number, want: number): void => expect(got).toBeCloseTo(want, 9);
const to1e12 = (got: number, want: number): void => expect(Math.abs(got - want)).toBeLessThan(1e-12 * Math.max(1, Math.abs(want)));

/** Two sums hold the same live keys (an undo leaves a key at about zero: not a preference), each value checked by `close`. */
function expectSameSums(got: DecayedSums, want: DecayedSums, nowMs: number, close: (got: number, want: number) => void): void {
  const expected = live(want.entriesAt(nowMs));
  const actual = live(got.entriesAt(nowMs));
  expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [key, value] of expected) close(actual.get(key)!, value);
}
const ranked = (profile: UserProfile, nowMs: number): string[] =>
  rankCandidates(sources.state.index, profile, DEFAULT_ALGORITHM_CONFIG, { limit: 20, nowMs }).map((item) => item.post.id);

describe('cold profiles restored from stored state', () => {
  const nowMs = ANCHOR + 86_400_000;

  it('equal the warm profile: the interest vector to the last bit, affinities to 9 decimals, the same seen posts, signals and ranking', async () => {
    for (let u = 1; u <= USERS; u++) {
      const userId = `user${u}`;
      expect(sources.state.cachedProfile(userId)).toBeUndefined();
      const cold = await loadProfile(sources, userId);
      const kept = warm.get(userId)!;
      expect(cold.interest.size).toBeGreaterThan(0);
      expect(cold.interest.entriesAt(nowMs)).toEqual(kept.interest.entriesAt(nowMs));
      for (const kind of ['authorAffinity', 'tagAffinity'] as const) expectSameSums(cold[kind], kept[kind], nowMs, to9Decimals);
      expect(cold.seenPosts).toEqual(kept.seenPosts);
      expect(cold.signals).toBe(kept.signals);
      expect(ranked(cold, nowMs)).toEqual(ranked(kept, nowMs));
    }
  });

  it('agree with a replay of the whole history (interest to 1e-12, the same ranking)', async () => {
    for (let u = 1; u <= USERS; u++) {
      const userId = `user${u}`;
      const cold = await loadProfile(sources, userId);
      const replayed = await replayedProfile(sources.state, sources.posts, userId);
      expectSameSums(cold.interest, replayed.interest, nowMs, to1e12);
      for (const kind of ['authorAffinity', 'tagAffinity'] as const) expectSameSums(cold[kind], replayed[kind], nowMs, to9Decimals);
      expect(cold.seenPosts).toEqual(replayed.seenPosts);
      expect(cold.signals).toBe(replayed.signals);
      expect(learnedPreferences(cold, nowMs).authors.map((a) => a.accountId)).toEqual(
        learnedPreferences(replayed, nowMs).authors.map((a) => a.accountId),
      );
      expect(ranked(cold, nowMs)).toEqual(ranked(replayed, nowMs));
    }
  });

  it('are rebuilt once from the history for a database from before interest vectors were stored (migration 0015)', async () => {
    const before = await database.db.selectFrom('user_interests').selectAll().orderBy('user_id').execute();
    await database.db.deleteFrom('user_interests').execute();
    const messages: string[] = [];
    expect(await backfillInterests(sources, (m) => messages.push(m))).toBe(USERS);
    expect(messages).toEqual([expect.stringMatching(/^stored interest vectors: rebuilt 150 users' from their history in \d+ ms/)]);
    // Once only: a database that stores any vector is left alone.
    expect(await backfillInterests(sources, (m) => messages.push(m))).toBe(0);
    const after = await database.db.selectFrom('user_interests').select('user_id').orderBy('user_id').execute();
    expect(after.map((r) => r.user_id)).toEqual(before.map((r) => r.user_id));
    await sources.state.reload();
    for (let u = 1; u <= USERS; u++) {
      const userId = `user${u}`;
      const cold = await loadProfile(sources, userId);
      const replayed = await replayedProfile(sources.state, sources.posts, userId);
      expectSameSums(cold.interest, replayed.interest, nowMs, to1e12);
      expect(ranked(cold, nowMs)).toEqual(ranked(replayed, nowMs));
    }
  });

  it('are backfilled when the app starts on such a database', async () => {
    const legacy = openSqlite(':memory:');
    try {
      await migrateToLatest(legacy.db);
      await seedDemo(legacy, { authors: 10, posts: 100, users: 20, interactions: 300 }, ANCHOR, 3);
      await legacy.db.deleteFrom('user_interests').execute();
      const app = await buildApp({ database: legacy, rateLimit: null, loadShedding: null, logger: false });
      await app.close();
      const rows = await legacy.db.selectFrom('user_interests').select('user_id').execute();
      expect(rows).toHaveLength(20);
    } finally {
      await legacy.close();
    }
  });
});
