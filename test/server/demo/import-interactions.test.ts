/**
 * Demo seeding loads past interactions through the interactions feature's bulk path
 * (importInteractions): the posts' counters, the users' stored affinities and their stored
 * interest vectors must be what the same interactions recorded one by one through the live
 * path leave behind.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AFFINITY_HALF_LIFE_MS, type InteractionAction } from '../../../src/ranking/index.js';
import type { DatabaseHandle } from '../../../server/platform/db/connection.js';
import { importInteractions, InteractionService, type ImportedInteraction } from '../../../server/interactions/interaction.service.js';
import { candidatePosts, PostService, writeStatuses } from '../../../server/posts/post.service.js';
import { loadRankingState } from '../../../server/ranking-state/ranking-state.service.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/test-database.js';

const NOW = Date.parse('2025-03-01T12:00:00.000Z');
const ACTIONS: InteractionAction[] = ['favorite', 'reblog', 'bookmark'];
const handles: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
});

async function withPosts(): Promise<DatabaseHandle> {
  const opened = await openTestDatabase();
  handles.push(opened);
  const { database } = opened;
  const statuses = Array.from({ length: 12 }, (_, i) =>
    makeStatus({ n: i + 1, nowMs: NOW, ageHours: 48, author: `a${i % 3}`, tags: i % 2 ? ['cats', 'tea'] : ['rust'], favourites: i }),
  );
  await database.db.transaction().execute((trx) => writeStatuses(trx, statuses, NOW, { keepOriginals: false }));
  return database;
}

function interactions(): ImportedInteraction[] {
  const out: ImportedInteraction[] = [];
  for (let k = 0; k < 60; k++) {
    const user = `user${1 + (k % 5)}`;
    const post = postId(1 + ((k * 7) % 12));
    const action = ACTIONS[k % 3] as InteractionAction;
    if (out.some((i) => i.userId === user && i.postId === post && i.action === action)) continue;
    out.push({ id: String(1_000_000 + k), userId: user, postId: post, action, createdAtMs: NOW - 40 * 3_600_000 + k * 1_800_000 });
  }
  return out;
}

async function counters(database: DatabaseHandle) {
  return database.db.selectFrom('posts').select(['id', 'favourites_count', 'reblogs_count', 'bookmarks_count']).orderBy('id').execute();
}

/** Each stored affinity decayed to `atMs`, by user, kind and target. */
async function affinitiesAt(database: DatabaseHandle, atMs: number): Promise<Map<string, number>> {
  const rows = await database.db.selectFrom('user_affinities').selectAll().execute();
  return new Map(
    rows.map((r) => [`${r.user_id}/${r.kind}/${r.target}`, r.score * Math.pow(2, -(atMs - r.as_of_ms) / AFFINITY_HALF_LIFE_MS)]),
  );
}

/** Every stored interest vector, its weights as hex (compared to the last bit). */
async function interests(database: DatabaseHandle) {
  const rows = await database.db.selectFrom('user_interests').selectAll().orderBy('user_id').execute();
  return rows.map((r) => ({ ...r, weights: Buffer.from(r.weights).toString('hex') }));
}

describe('importInteractions', () => {
  it('leaves the counters, affinities and interest vectors that recording the same interactions one by one leaves', async () => {
    const live = await withPosts();
    const state = await loadRankingState((limits) => candidatePosts(live.db, limits));
    const service = new InteractionService(live.db, state, new PostService(live.db, state));
    const loaded = await withPosts();
    const all = interactions();
    for (const i of all) await service.record({ userId: i.userId, postId: i.postId, actionType: i.action }, i.createdAtMs);
    await loaded.db.transaction().execute((trx) => importInteractions(trx, all, NOW));

    expect(await counters(loaded)).toEqual(await counters(live));
    const expected = await affinitiesAt(live, NOW);
    const actual = await affinitiesAt(loaded, NOW);
    expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [key, score] of expected) expect(actual.get(key)).toBeCloseTo(score, 9);
    const vectors = await interests(loaded);
    expect(vectors.map((v) => v.user_id)).toEqual(['user1', 'user2', 'user3', 'user4', 'user5']);
    expect(vectors).toEqual(await interests(live));
    const stored = await loaded.db.selectFrom('interactions').select(['id', 'user_id', 'post_id', 'action_type']).orderBy('id').execute();
    expect(stored).toEqual(
      [...all]
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map((i) => ({ id: i.id, user_id: i.userId, post_id: i.postId, action_type: i.action })),
    );
  });

  it('refuses an interaction with a post that does not exist, writing nothing', async () => {
    const database = await withPosts();
    const bad = [
      ...interactions().slice(0, 3),
      { id: '9', userId: 'user1', postId: 'nope', action: 'favorite' as const, createdAtMs: NOW },
    ];
    await expect(database.db.transaction().execute((trx) => importInteractions(trx, bad, NOW))).rejects.toThrow('No post with id nope');
    const n = await database.db
      .selectFrom('interactions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(0);
  });
});
