/**
 * Batches of back-dated interactions (an import) written by two instances at once on
 * PostgreSQL: each batch is one unit of the group commit, serialised across instances by its
 * lock, and every decay counts from each interaction's own time, whatever order they arrive in.
 *
 * Reference values by hand: affinities halve every 14 days and add at the later instant, so
 * author1's affinity after a favourite (1) 10 days back and a bookmark (1.5) 1 day back is, as
 * of 1 day back, 1.5 + 1 · 2^(−9/14).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { InteractionService } from '../../server/interactions/interaction.service.js';
import { candidatePosts, PostService } from '../../server/posts/post.service.js';
import { loadRankingState } from '../../server/ranking-state/ranking-state.service.js';
import { makeStatus, postId } from '../helpers/mastodon-fixtures.js';
import { createTestSchema, postgresUnavailable, suiteTitle, type TestSchema } from './postgres-test-database.js';

const unavailable = await postgresUnavailable();

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const DAY = 86_400_000;
const WORDS = ['alpha', 'bravo', 'charlie', 'delta'] as const;

async function instance(url: string) {
  const database = await openDatabase(url);
  const db = database.db;
  const state = await loadRankingState((limits) => candidatePosts(db, limits));
  const posts = new PostService(db, state);
  return { database, posts, interactions: new InteractionService(db, state, posts) };
}

describe.skipIf(unavailable !== undefined)(suiteTitle('interaction batches from two instances', unavailable), () => {
  let schema: TestSchema;
  let a: Awaited<ReturnType<typeof instance>>;
  let b: Awaited<ReturnType<typeof instance>>;

  beforeAll(async () => {
    schema = await createTestSchema();
    const setup = await openDatabase(schema.url);
    await migrateToLatest(setup.db);
    const seeding = await instance(schema.url);
    await seeding.posts.ingest(
      WORDS.map((word, i) => makeStatus({ n: i + 1, author: `author${i + 1}`, text: `${word} ${word} topic`, nowMs: T0 - 30 * DAY })),
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

  it('stores both batches whole, each signal decayed from its own time', async () => {
    const user = 'importer';
    await Promise.all([
      a.interactions.recordMany(
        [
          { userId: user, postId: postId(1), actionType: 'favorite', createdAtMs: T0 - 10 * DAY },
          { userId: user, postId: postId(2), actionType: 'reblog', createdAtMs: T0 - 5 * DAY },
        ],
        T0,
      ),
      b.interactions.recordMany(
        [
          { userId: user, postId: postId(3), actionType: 'favorite', createdAtMs: T0 - 20 * DAY },
          { userId: user, postId: postId(1), actionType: 'bookmark', createdAtMs: T0 - DAY },
        ],
        T0,
      ),
    ]);
    const affinities = await b.interactions.affinities(user);
    const author1 = affinities.find((x) => x.kind === 'author' && x.target === 'acc-author1');
    expect(author1?.asOfMs).toBe(T0 - DAY);
    expect(author1?.score).toBeCloseTo(1.5 + Math.pow(2, -9 / 14), 9);
    const author3 = affinities.find((x) => x.kind === 'author' && x.target === 'acc-author3');
    expect(author3).toMatchObject({ asOfMs: T0 - 20 * DAY, score: 1 });
    const stored = await a.interactions.interest(user);
    for (const word of WORDS.slice(0, 3)) expect(stored?.keys, word).toContain(word);
    expect(stored?.latestMs).toBe(T0 - DAY);
    expect(await a.posts.counts(postId(1))).toMatchObject({ favourites_count: 1, bookmarks_count: 1 });
    const history = await a.interactions.history(user);
    expect(history.map((h) => h.createdAtMs)).toEqual([T0 - 20 * DAY, T0 - 10 * DAY, T0 - 5 * DAY, T0 - DAY]);
  });
});
