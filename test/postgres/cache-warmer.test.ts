/**
 * The cache warmer's query is portable: on SQLite and PostgreSQL alike it counts the newest
 * interactions by their time-ordered ids (not SQLite's rowid, which PostgreSQL has not, and
 * which is insertion order: here rows are inserted newest first, so an insertion-order
 * query would count the wrong ones), and the agent builds the same profiles on both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { InteractionService } from '../../server/interactions/interaction.service.js';
import { statusRows } from '../../server/posts/post.mapper.js';
import { candidatePosts, PostService } from '../../server/posts/post.service.js';
import { loadRankingState } from '../../server/ranking-state/ranking-state.service.js';
import { cacheWarmerAgent } from '../../server/recommendations/cache-warmer.agent.js';
import { mostActiveRecentUsers } from '../../server/interactions/interaction.repository.js';
import { generatePostId } from '../../src/post-ids.js';
import { makeStatus, postId } from '../helpers/mastodon-fixtures.js';
import { observeOnBoth, postgresUnavailable, suiteTitle, type TestSchema } from './postgres-test-database.js';

const unavailable = await postgresUnavailable();

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
/** Oldest first: `old` is the busiest overall, but only before the newest six. */
const HISTORY = [...Array<string>(5).fill('old'), 'busy', 'busy', 'busy', 'steady', 'steady', 'quiet'];

interface Observed {
  newest1: string[];
  newest3: string[];
  newest6: string[];
  all: string[];
  limited: string[];
  firstRun: unknown;
  secondRun: unknown;
}

async function observe(database: DatabaseHandle): Promise<Observed> {
  const { db } = database;
  await migrateToLatest(db);
  for (const n of [1, 2, 3]) {
    const rows = statusRows(makeStatus({ n, author: `author${n}`, nowMs: T0 }), T0, true);
    for (const account of rows.accounts)
      await db
        .insertInto('accounts')
        .values(account)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    for (const post of rows.posts) await db.insertInto('posts').values(post.row).execute();
  }
  const interactions = HISTORY.map((userId, i) => {
    const at = T0 + (i + 1) * 60_000;
    return {
      id: generatePostId(at),
      user_id: userId,
      post_id: postId(1 + (i % 3)),
      action_type: `favourite-${i}`,
      context_json: null,
      created_at: new Date(at).toISOString(),
      created_at_ms: at,
    };
  });
  // Newest first: neither insertion order nor a physical order may stand in for time.
  for (const row of interactions.reverse()) await db.insertInto('interactions').values(row).execute();

  const state = await loadRankingState((limits) => candidatePosts(db, limits));
  const posts = new PostService(db, state);
  const agent = cacheWarmerAgent(
    { db, state, posts, interactions: new InteractionService(db, state, posts) },
    { intervalSeconds: 900, maxUsers: 2 },
  );
  const context = { signal: new AbortController().signal, now: () => T0 };
  return {
    newest1: await mostActiveRecentUsers(db, 1, 10),
    newest3: await mostActiveRecentUsers(db, 3, 10),
    newest6: await mostActiveRecentUsers(db, 6, 10),
    all: await mostActiveRecentUsers(db, 1000, 10),
    limited: await mostActiveRecentUsers(db, 1000, 2),
    firstRun: await agent.run(context),
    secondRun: await agent.run(context),
  };
}

describe.skipIf(unavailable !== undefined)(suiteTitle('the cache warmer', unavailable), () => {
  let schema: TestSchema;
  let sqlite: Observed;
  let postgres: Observed;

  beforeAll(async () => {
    ({ sqlite, postgres, schema } = await observeOnBoth(observe));
  }, 60_000);

  afterAll(async () => {
    await schema?.drop();
  });

  it('counts only the newest interactions, busiest first, ties by user id', () => {
    expect(postgres.newest1).toEqual(['quiet']);
    expect(postgres.newest3).toEqual(['steady', 'quiet']);
    expect(postgres.newest6).toEqual(['busy', 'steady', 'quiet']);
    expect(postgres.all).toEqual(['old', 'busy', 'steady', 'quiet']);
    expect(postgres.limited).toEqual(['old', 'busy']);
  });

  it('the agent builds the busiest profiles, then finds them cached', () => {
    expect(postgres.firstRun).toMatchObject({ details: { active_users: 2, profiles_built: 2 } });
    expect(postgres.secondRun).toMatchObject({ details: { active_users: 2, profiles_built: 0 } });
  });

  it('answers as on SQLite', () => {
    expect(postgres).toEqual(sqlite);
  });
});
