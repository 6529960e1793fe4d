/**
 * A cold user's author and tag affinities come from user_affinities (one indexed read)
 * instead of replaying their history: for many users, after interactions, undos and
 * feedback, the profile must match the one replayed from the whole history.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildUserProfile,
  DEFAULT_ALGORITHM_CONFIG,
  learnedPreferences,
  rankCandidates,
  type InteractionAction,
  type UserProfile,
} from '../../../src/ranking/index.js';
import { openSqlite, type DatabaseHandle } from '../../../server/db/connection.js';
import { migrateToLatest } from '../../../server/db/migrate.js';
import { seedDemo } from '../../../server/demo/demo.seed.js';
import { InteractionService } from '../../../server/interactions/interaction.service.js';
import { candidatePosts, PostService } from '../../../server/posts/post.service.js';
import { loadRankingState, type RankingState } from '../../../server/ranking-state/ranking-state.service.js';
import { FeedbackService } from '../../../server/recommendations/feedback.service.js';
import { defaultRankingPolicy } from '../../../server/recommendations/default-ranking-policy.js';
import { loadProfile, type ProfileSources } from '../../../server/recommendations/profile-loader.js';

const ANCHOR = Date.UTC(2025, 0, 10);
const USERS = 60;
let database: DatabaseHandle;
let sources: ProfileSources;

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
  database = openSqlite(':memory:');
  await migrateToLatest(database.db);
  await seedDemo(database, { authors: 40, posts: 600, users: USERS, interactions: 3000 }, ANCHOR, 7);
  const state = await loadRankingState((limits) => candidatePosts(database.db, limits));
  const posts = new PostService(database.db, state);
  const interactions = new InteractionService(database.db, state, posts);
  sources = { db: database.db, state, posts, interactions };
  const feedback = new FeedbackService(sources, defaultRankingPolicy);
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
}, 60_000);

afterAll(async () => {
  await database.close();
});

describe('cold profiles from user_affinities', () => {
  it('match the profile replayed from the whole history: affinities to 9 decimals, the same interests, seen posts, signals and ranking', async () => {
    const nowMs = ANCHOR + 86_400_000;
    for (let u = 1; u <= USERS; u++) {
      const userId = `user${u}`;
      const fromTable = await loadProfile(sources, userId);
      const replayed = await replayedProfile(sources.state, sources.posts, userId);
      for (const kind of ['authorAffinity', 'tagAffinity'] as const) {
        // An undo leaves a key at (about) zero in the replayed sums and a zero row in the table: not a preference.
        const live = (entries: [string, number][]): Map<string, number> => new Map(entries.filter(([, v]) => Math.abs(v) > 1e-9));
        const expected = live(replayed[kind].entriesAt(nowMs));
        const actual = live(fromTable[kind].entriesAt(nowMs));
        expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
        for (const [key, value] of expected) expect(actual.get(key)).toBeCloseTo(value, 9);
      }
      expect(new Map(fromTable.interest.entriesAt(nowMs))).toEqual(new Map(replayed.interest.entriesAt(nowMs)));
      expect(fromTable.seenPosts).toEqual(replayed.seenPosts);
      expect(fromTable.signals).toBe(replayed.signals);
      expect(learnedPreferences(fromTable, nowMs).authors.map((a) => a.accountId)).toEqual(
        learnedPreferences(replayed, nowMs).authors.map((a) => a.accountId),
      );
      const ids = (profile: UserProfile): string[] =>
        rankCandidates(sources.state.index, profile, DEFAULT_ALGORITHM_CONFIG, { limit: 20, nowMs }).map((item) => item.post.id);
      expect(ids(fromTable)).toEqual(ids(replayed));
    }
  });
});
