/**
 * The co-engagement writers' rule (docs/ranking.md) with the writers' memory of users' newest
 * interactions (server/ranking-state/recent-interactions.ts): for a long random sequence of
 * live and back-dated interactions, duplicates, undos, batches rolled back in the middle of a
 * group commit, post deletions and erasures, every `coEngaged` event must pair the post with
 * exactly the posts the stored rows give (the read the writers did inside the transaction
 * before the memory: `postsBefore`), and the memory must have answered most of them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CO_ENGAGEMENT_OPTIONS, recentOtherPosts, type CoEngagementChange } from '../../../src/ranking/index.js';
import { mulberry32 } from '../../../src/experiments/interleaving/team-draft.js';
import type { DatabaseHandle } from '../../../server/platform/db/connection.js';
import { seedDemo } from '../../../server/demo/demo.seed.js';
import { InteractionService } from '../../../server/interactions/interaction.service.js';
import { newestInteractions, postsBefore } from '../../../server/interactions/co-engagement.repository.js';
import { candidatePosts, PostService } from '../../../server/posts/post.service.js';
import { loadRankingState, type RankingState } from '../../../server/ranking-state/ranking-state.service.js';
import { openTestDatabase, TEST_BACKEND, type TestDatabase } from '../../helpers/test-database.js';

const ANCHOR = Date.UTC(2025, 0, 10);
const DAY = 86_400_000;
const WINDOW = 3;
const USERS = ['user1', 'user2', 'user3', 'user4', 'user5', 'user6'];
const ACTIONS = ['favorite', 'reblog', 'bookmark'] as const;

let opened: TestDatabase;
let database: DatabaseHandle;
let state: RankingState;
let posts: PostService;
let interactions: InteractionService;
let events: CoEngagementChange[];

/**
 * A seeded database and its writers; `history`: the co-engagement state's rebuild reads that
 * many newest interactions, and the writers' memory starts from them (none: it starts empty).
 */
async function setUp(history: number | undefined): Promise<void> {
  opened = await openTestDatabase();
  database = opened.database;
  await seedDemo(database, { authors: 20, posts: 200, users: USERS.length, interactions: 300 }, ANCHOR, 3);
  state = await loadRankingState(
    (limits) => candidatePosts(database.db, limits),
    { coEngagement: { ...DEFAULT_CO_ENGAGEMENT_OPTIONS, window: WINDOW }, coEngagementHistory: history ?? 0 },
    history === undefined ? undefined : (limit) => newestInteractions(database.db, limit),
  );
  posts = new PostService(database.db, state);
  interactions = new InteractionService(database.db, state, posts);
  events = [];
  state.onLocalEvent((message) => {
    if (message.type === 'coEngaged') events.push(message.change);
  });
}

afterEach(async () => {
  await opened.close();
});

/** The partners the stored rows give an interaction (user, post) at (atMs, id): the rule as the writers read it from the database. */
async function storedRule(userId: string, postId: string, atMs: number, id: string): Promise<string[]> {
  return recentOtherPosts(await postsBefore(database.db, userId, postId, atMs, id, 3 * WINDOW), postId, WINDOW);
}

async function postIds(): Promise<string[]> {
  return (await database.db.selectFrom('posts').select('id').orderBy('id').execute()).map((row) => row.id);
}

describe('co-engagement pairing from the writers memory', () => {
  it.each([
    ['starting empty', undefined],
    ['starting from every stored interaction', 100_000],
    ['starting from the newest 120 stored interactions', 120],
    ['starting from the newest 20 stored interactions', 20],
  ])(
    'pairs every interaction and undo exactly as the stored rows do, through undos, rollbacks, deletions and erasures (%s)',
    async (_name, history) => {
      await setUp(history);
      const filled = state.recentInteractions.size;
      if (history !== undefined && TEST_BACKEND === 'sqlite') expect(filled).toBeGreaterThan(history >= 120 ? USERS.length - 1 : 1);
      const random = mulberry32(27);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
      let ids = await postIds();
      let nowMs = ANCHOR;
      let checked = 0;
      for (let step = 0; step < 700; step++) {
        nowMs += 1_000;
        const userId = pick(USERS);
        const r = random();
        const seen = events.length;
        if (r < 0.5 || r >= 0.97) {
          // A live interaction, or (r ≥ 0.97) one dated back by up to ten days: before what memory holds.
          const input = {
            userId,
            postId: pick(ids),
            actionType: pick(ACTIONS),
            ...(r >= 0.97 ? { createdAtMs: nowMs - random() * 10 * DAY } : {}),
          };
          const result = await interactions.record(input, nowMs).catch(() => undefined);
          if (result?.created) {
            const { id, created_at } = result.interaction;
            expect(events.slice(seen)).toEqual([
              { postId: input.postId, withPostIds: await storedRule(userId, input.postId, Date.parse(created_at), id), weight: 1 },
            ]);
            checked++;
          } else expect(events.length).toBe(seen);
        } else if (r < 0.8) {
          const row = await database.db
            .selectFrom('interactions')
            .select(['id', 'post_id', 'created_at_ms'])
            .where('user_id', '=', userId)
            .orderBy('id', 'desc')
            .offset(Math.floor(random() * 4))
            .limit(1)
            .executeTakeFirst();
          if (row === undefined) continue;
          await interactions.undoById(row.id, () => undefined);
          expect(events.slice(seen)).toEqual([
            { postId: row.post_id, withPostIds: await storedRule(userId, row.post_id, Number(row.created_at_ms), row.id), weight: -1 },
          ]);
          checked++;
        } else if (r < 0.9) {
          // One group commit: a batch that writes, then fails on a missing post (its unit rolls
          // back), and the same user's next write in the same transaction, which must not pair
          // with what was rolled back.
          const batched = { userId, postId: pick(ids), actionType: pick(ACTIONS) };
          const next = { userId, postId: pick(ids), actionType: pick(ACTIONS) };
          const [failed, single] = await Promise.allSettled([
            interactions.recordMany([batched, { userId, postId: 'missing', actionType: 'favorite' }], nowMs),
            interactions.record(next, nowMs),
          ]);
          expect(failed.status).toBe('rejected');
          const stored = await database.db
            .selectFrom('interactions')
            .select('id')
            .where('user_id', '=', userId)
            .where('post_id', '=', batched.postId)
            .where('action_type', '=', batched.actionType)
            .executeTakeFirst();
          if (single.status === 'fulfilled' && single.value.created) {
            expect(stored === undefined || stored.id !== single.value.interaction.id || batched.postId === next.postId).toBe(true);
            const { id, created_at } = single.value.interaction;
            expect(events.slice(seen)).toEqual([
              { postId: next.postId, withPostIds: await storedRule(userId, next.postId, Date.parse(created_at), id), weight: 1 },
            ]);
            checked++;
          }
        } else if (r < 0.94) {
          // A post deleted: its interactions go with it (the foreign key's cascade).
          await posts.delete(pick(ids)).catch(() => undefined);
          ids = await postIds();
        } else {
          // An erasure's steps 3 and 4 (server/privacy/privacy-erasure.service.ts): the rows, then memory.
          await database.db.deleteFrom('interactions').where('user_id', '=', userId).execute();
          state.userErased(userId);
          await state.erasureApplied();
        }
      }
      expect(checked).toBeGreaterThan(400);
      const { hits, misses } = state.recentInteractions;
      if (TEST_BACKEND === 'sqlite') {
        // Most answers came from memory; some (back-dated writes, after undos) from the database.
        expect(hits).toBeGreaterThan(checked / 2);
        expect(misses).toBeGreaterThan(0);
      } else {
        // Other processes may write a PostgreSQL database: the writers read it every time.
        expect(hits + misses).toBe(0);
      }
    },
    120_000,
  );
});
