import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchedTransactionRunner } from '../../../server/platform/db/batched-transactions.js';

interface Db {
  items: { name: string };
}

let db: Kysely<Db>;
let statements: string[];
beforeEach(async () => {
  statements = [];
  db = new Kysely<Db>({
    dialect: new SqliteDialect({ database: new SQLite(':memory:') }),
    log: (event) => void statements.push(event.query.sql.toLowerCase()),
  });
  await db.schema
    .createTable('items')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .execute();
  statements = [];
});
afterEach(async () => {
  await db.destroy();
});

const names = async () => (await db.selectFrom('items').select('name').orderBy('name').execute()).map((r) => r.name);

describe('BatchedTransactionRunner', () => {
  it('runs units submitted together in one transaction; a failing unit is rolled back alone', async () => {
    const runner = new BatchedTransactionRunner(db);
    const insert = (name: string, fail = false) =>
      runner.run(async (trx) => {
        await trx.insertInto('items').values({ name }).execute();
        if (fail) throw new Error(`no ${name}`);
        return name;
      });
    const results = await Promise.allSettled([insert('a'), insert('b', true), insert('c'), insert('a')]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('no b');
    expect(await names()).toEqual(['a', 'c']);
    expect(statements.filter((s) => s === 'begin')).toHaveLength(1);
    expect(statements.filter((s) => s === 'commit')).toHaveLength(1);
  });

  it('settles no unit before the commit, and keeps batching what arrives while one runs', async () => {
    const runner = new BatchedTransactionRunner(db);
    const seen: string[] = [];
    const first = runner.run(async (trx) => {
      await trx.insertInto('items').values({ name: 'x' }).execute();
      // Submitted while the first batch is open: it must wait for a later transaction.
      void runner.run(async (inner) => inner.insertInto('items').values({ name: 'y' }).execute()).then(() => seen.push('y'));
      return 'x';
    });
    await first.then(() => seen.push('x'));
    expect(statements.indexOf('commit')).toBeGreaterThan(statements.findIndex((s) => s.startsWith('insert')));
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual(['x', 'y']);
    expect(statements.filter((s) => s === 'commit')).toHaveLength(2);
    expect(await names()).toEqual(['x', 'y']);
  });

  it('waits a few more event-loop turns while units keep arriving, so they share one commit', async () => {
    const runner = new BatchedTransactionRunner(db);
    const insert = (name: string) => runner.run(async (trx) => trx.insertInto('items').values({ name }).execute());
    const submitted: Promise<unknown>[] = [];
    // One unit per event-loop turn, each arriving before the runner's turn (as requests
    // read in the I/O phase arrive before the runner's setImmediate).
    await new Promise<void>((resolve) => {
      let i = 0;
      const next = (): void => {
        if (i < 7) setImmediate(next);
        else resolve();
        submitted.push(insert(`r${i}`));
        i += 1;
      };
      next();
    });
    await Promise.all(submitted);
    expect(await names()).toHaveLength(8);
    const commits = statements.filter((s) => s === 'commit').length;
    // Without waiting, every turn's unit would commit alone (8 commits); the runner waits
    // up to 3 extra turns per batch while the queue grows, so 8 units take 2 commits.
    expect(commits).toBe(2);
  });

  it('a lone failing unit rolls its transaction back', async () => {
    const runner = new BatchedTransactionRunner(db);
    await expect(
      runner.run(async (trx) => {
        await trx.insertInto('items').values({ name: 'z' }).execute();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await names()).toEqual([]);
  });
});
