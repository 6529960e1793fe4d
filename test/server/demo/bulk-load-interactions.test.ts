/**
 * The bulk load of interactions (demo seeding, benchmarks) must leave exactly what the
 * interactions feature's importInteractions leaves (which import-interactions.test.ts holds to
 * the live write path): the same rows in the same row order, counters, affinities and interest
 * vectors to the last bit, whether the vectors are computed on the loading thread or in the
 * worker (the built one in dist/, as the checkpointer's test uses), and whether the rows are
 * inserted on the loading thread or built in a staging file by a worker and copied over.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { inBulkLoadTransaction } from '../../../server/platform/db/bulk-insert.js';
import { openSqlite, type DatabaseHandle } from '../../../server/platform/db/connection.js';
import { migrateToLatest } from '../../../server/platform/db/migrate.js';
import { generateDemoData, type DemoInteraction } from '../../../server/demo/demo-generator.js';
import { demoAccounts, demoStatuses } from '../../../server/demo/demo-statuses.js';
import { bulkLoadInteractions, inTimeOrder } from '../../../server/interactions/interaction-bulk-load.js';
import { importInteractions, type ImportedInteraction } from '../../../server/interactions/interaction.service.js';
import { writeAccounts, writeStatuses } from '../../../server/posts/post.service.js';

const ANCHOR = Date.UTC(2025, 2, 1, 12);
const workerScript = new URL('../../../dist/server/interactions/interest-vectors.worker.js', import.meta.url);
const stagingWorkerScript = new URL('../../../dist/server/platform/db/bulk-staging.worker.js', import.meta.url);
const data = generateDemoData({ authors: 30, posts: 300, users: 120, interactions: 2500, days: 7 }, ANCHOR, 11);

const handles: DatabaseHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
});

async function withPosts(): Promise<DatabaseHandle> {
  const database = openSqlite(':memory:');
  handles.push(database);
  await migrateToLatest(database.db);
  await database.db.transaction().execute(async (trx) => {
    const accounts = demoAccounts(data, ANCHOR);
    await writeAccounts(trx, accounts, ANCHOR, { keepOriginals: false });
    await writeStatuses(trx, demoStatuses(data, accounts), ANCHOR, { keepOriginals: false });
  });
  return database;
}

/**
 * The demo's interactions, not in time order, with some at the same instant (ordered by id
 * then) and ids not in time order, so that both orders (given, by time) matter.
 */
function interactions(): ImportedInteraction[] {
  const out: ImportedInteraction[] = data.interactions.map((i: DemoInteraction) => ({ ...i }));
  for (let k = 0; k + 1 < out.length; k += 97) {
    const a = out[k] as ImportedInteraction;
    (out[k + 1] as ImportedInteraction).createdAtMs = a.createdAtMs;
  }
  return out.reverse();
}

/** Every table the load writes, rows as stored (weights as hex, so compared to the last bit). */
async function stored(database: DatabaseHandle) {
  const db = database.db;
  return {
    interactions: await db
      .selectFrom('interactions')
      .select(['id', 'user_id', 'post_id', 'action_type', 'created_at', 'created_at_ms'])
      .orderBy('id')
      .execute(),
    rowOrder: (await db.selectFrom('interactions').select('id').orderBy(db.dynamic.ref('rowid')).execute()).map((r) => r.id),
    counters: await db.selectFrom('posts').select(['id', 'favourites_count', 'reblogs_count', 'bookmarks_count']).orderBy('id').execute(),
    affinities: await db.selectFrom('user_affinities').selectAll().orderBy('user_id').orderBy('kind').orderBy('target').execute(),
    interests: (await db.selectFrom('user_interests').selectAll().orderBy('user_id').execute()).map((r) => ({
      ...r,
      weights: Buffer.from(r.weights).toString('hex'),
    })),
  };
}

describe('bulkLoadInteractions', () => {
  it('leaves what importInteractions leaves, to the last bit, on this thread and in the worker', async () => {
    const given = interactions();
    const reference = await withPosts();
    await reference.db.transaction().execute((trx) => importInteractions(trx, given, ANCHOR));
    const expected = await stored(reference);
    expect(expected.interactions).toHaveLength(given.length);
    expect(expected.interests.length).toBeGreaterThan(100);

    for (const script of [null, workerScript]) {
      const loaded = await withPosts();
      await loaded.db.transaction().execute((trx) => bulkLoadInteractions(trx, given, ANCHOR, { workerScript: script }));
      expect(await stored(loaded)).toEqual(expected);
    }
  });

  it('leaves the same when the interactions table is built in a staging file and copied, its indexes whole', async () => {
    const given = interactions();
    const reference = await withPosts();
    await reference.db.transaction().execute((trx) => importInteractions(trx, given, ANCHOR));
    const expected = await stored(reference);

    const loaded = await withPosts();
    await inBulkLoadTransaction(
      loaded.db,
      async (trx, staging) => {
        expect(staging).toBeDefined();
        await bulkLoadInteractions(trx, given, ANCHOR, { workerScript, stagingWorkerScript, ...(staging ? { staging } : {}) });
      },
      { staging: true },
    );
    expect(await stored(loaded)).toEqual(expected);
    // Every index holds every row (the copy moved b-trees built in the staging file), and the
    // schema is the migrated one: nothing of the staging file's is left.
    expect((await sql<{ integrity_check: string }>`PRAGMA integrity_check`.execute(loaded.db)).rows).toEqual([{ integrity_check: 'ok' }]);
    const schema = (db: DatabaseHandle) =>
      sql<{ name: string; sql: string | null }>`SELECT name, sql FROM sqlite_master WHERE tbl_name = 'interactions' ORDER BY name`.execute(
        db.db,
      );
    expect((await schema(loaded)).rows).toEqual((await schema(reference)).rows);
    const byKey = await loaded.db
      .selectFrom('interactions')
      .select('id')
      .where('user_id', '=', (given[0] as ImportedInteraction).userId)
      .where('post_id', '=', (given[0] as ImportedInteraction).postId)
      .where('action_type', '=', (given[0] as ImportedInteraction).action)
      .execute();
    expect(byKey).toEqual([{ id: (given[0] as ImportedInteraction).id }]);
  });

  it('a row breaking a unique key fails a staged load, and nothing is written', async () => {
    const given = interactions();
    const duplicate = { ...(given[3] as ImportedInteraction), id: 'dup' };
    const loaded = await withPosts();
    await expect(
      inBulkLoadTransaction(
        loaded.db,
        (trx, staging) =>
          bulkLoadInteractions(trx, [...given, duplicate], ANCHOR, {
            workerScript: null,
            stagingWorkerScript,
            ...(staging ? { staging } : {}),
          }),
        { staging: true },
      ),
    ).rejects.toThrow(/UNIQUE constraint failed: interactions.user_id, interactions.post_id, interactions.action_type/);
    const n = await loaded.db
      .selectFrom('interactions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(0);
  });

  it('inserts rows in time order, ties by id, so row ids follow time', async () => {
    const given = interactions();
    const loaded = await withPosts();
    await loaded.db.transaction().execute((trx) => bulkLoadInteractions(trx, given, ANCHOR, { workerScript: null }));
    expect((await stored(loaded)).rowOrder).toEqual(inTimeOrder(given).map((i) => i.id));
    expect(inTimeOrder(given).map((i) => i.id)).toEqual(
      [...given].sort((a, b) => a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : 1)).map((i) => i.id),
    );
  });

  it('refuses an interaction with a post that does not exist before writing anything', async () => {
    const database = await withPosts();
    const bad = [
      ...interactions().slice(0, 5),
      { id: '9', userId: 'user1', postId: 'nope', action: 'favorite' as const, createdAtMs: ANCHOR },
    ];
    await expect(
      database.db.transaction().execute((trx) => bulkLoadInteractions(trx, bad, ANCHOR, { workerScript: null })),
    ).rejects.toThrow('No post with id nope');
    const n = await database.db
      .selectFrom('interactions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(0);
  });
});
