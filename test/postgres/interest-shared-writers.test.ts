/**
 * Two instances writing one user's signals on PostgreSQL: each write of the stored interest
 * vector builds on the stored one, not on the instance's cached profile. An instance whose
 * profile of the user was cached before another instance's write (its invalidation still on
 * the way) used to add its signal to that stale vector and store it, losing the other
 * instance's signal for good (a cold profile then differed from a replay of the history).
 * Feedback writes go through the same group commit, under the same lock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { InteractionService } from '../../server/interactions/interaction.service.js';
import { candidatePosts, PostService } from '../../server/posts/post.service.js';
import { loadRankingState } from '../../server/ranking-state/ranking-state.service.js';
import { FeedbackService } from '../../server/recommendations/feedback.service.js';
import { loadProfile } from '../../server/recommendations/profile-loader.js';
import { defaultRankingPolicy } from '../../server/recommendations/default-ranking-policy.js';
import { makeStatus, postId } from '../helpers/mastodon-fixtures.js';
import { createTestSchema, postgresUnavailable, suiteTitle, type TestSchema } from './postgres-test-database.js';

const unavailable = await postgresUnavailable();

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const WORDS = ['alpha', 'bravo', 'charlie', 'delta'] as const;

/** One instance: its own connection pool and ranking state on the shared schema. */
async function instance(url: string) {
  const database = await openDatabase(url);
  const db = database.db;
  const state = await loadRankingState((limits) => candidatePosts(db, limits));
  const posts = new PostService(db, state);
  const interactions = new InteractionService(db, state, posts);
  const sources = { db, state, posts, interactions };
  return { database, state, posts, interactions, sources, feedback: new FeedbackService(sources, defaultRankingPolicy) };
}

describe.skipIf(unavailable !== undefined)(suiteTitle('stored interest vectors with two writing instances', unavailable), () => {
  let schema: TestSchema;
  let a: Awaited<ReturnType<typeof instance>>;
  let b: Awaited<ReturnType<typeof instance>>;

  beforeAll(async () => {
    schema = await createTestSchema();
    const setup = await openDatabase(schema.url);
    await migrateToLatest(setup.db);
    const seeding = await instance(schema.url);
    await seeding.posts.ingest(
      WORDS.map((word, i) => makeStatus({ n: i + 1, author: `author${i + 1}`, text: `${word} ${word} ${word} topic`, nowMs: T0 })),
    );
    await seeding.database.close();
    await setup.close();
    a = await instance(schema.url);
    b = await instance(schema.url);
  }, 60_000);

  afterAll(async () => {
    await a?.database.close();
    await b?.database.close();
    await schema?.drop();
  });

  it("keeps every instance's signals: a write on an instance whose cached profile is behind builds on the stored vector", async () => {
    const user = 'shared-user';
    await a.interactions.record({ userId: user, postId: postId(1), actionType: 'favorite' }, T0 + 1_000);
    // a caches the user's profile (alpha), then b writes (bravo) before a hears of it.
    await loadProfile(a.sources, user);
    expect(a.state.cachedProfile(user)).toBeDefined();
    await b.interactions.record({ userId: user, postId: postId(2), actionType: 'favorite' }, T0 + 2_000);
    // a writes again: an interaction (charlie), then feedback (delta).
    await a.interactions.record({ userId: user, postId: postId(3), actionType: 'reblog' }, T0 + 3_000);
    await a.feedback.feedback(user, postId(4), 'more', T0 + 4_000);

    const stored = await b.interactions.interest(user);
    for (const word of WORDS) expect(stored?.keys, word).toContain(word);
  });
});
