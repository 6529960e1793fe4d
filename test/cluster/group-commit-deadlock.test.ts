/**
 * Two instances' group commits on one PostgreSQL database (each its own pool and runner, as
 * two `serve` processes have) lock two rows in opposite orders: PostgreSQL aborts one side
 * with a deadlock, and that unit runs again in its runner's next batch instead of failing
 * its request (bench:cluster's interactions were 500s before). A unit failing for any other
 * reason still fails at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { BatchedTransactionRunner } from '../../server/db/batched-transactions.js';
import { openDatabase, type DatabaseHandle } from '../../server/db/connection.js';
import { createTestSchema, postgresUnavailable, suiteTitle, type TestSchema } from '../postgres/postgres-test-database.js';

const unavailable = await postgresUnavailable();

interface Counters {
  counters: { id: number; n: number };
}

describe.skipIf(unavailable !== undefined)(suiteTitle("two instances' group commits locking rows in opposite orders", unavailable), () => {
  let schema: TestSchema;
  let a: DatabaseHandle;
  let b: DatabaseHandle;

  beforeAll(async () => {
    schema = await createTestSchema();
    a = await openDatabase(schema.url);
    b = await openDatabase(schema.url);
    await sql`CREATE TABLE counters (id integer PRIMARY KEY, n integer NOT NULL)`.execute(a.db);
    await sql`INSERT INTO counters VALUES (1, 0), (2, 0)`.execute(a.db);
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await schema?.drop();
  });

  it('runs the unit PostgreSQL chose as the deadlock victim again, so both writes succeed once each', async () => {
    const dbA = a.db as unknown as Kysely<Counters>;
    const dbB = b.db as unknown as Kysely<Counters>;
    // Each unit holds its first row until the other holds its own: then each wants the other's.
    let arrived = 0;
    let release!: () => void;
    const bothHoldOne = new Promise<void>((resolve) => (release = resolve));
    const attempts = { a: 0, b: 0 };
    const unit = (name: 'a' | 'b', first: number, second: number) => async (trx: Kysely<Counters>) => {
      attempts[name] += 1;
      await trx
        .updateTable('counters')
        .set({ n: sql`n + 1` })
        .where('id', '=', first)
        .execute();
      arrived += 1;
      if (arrived === 2) release();
      await bothHoldOne;
      await trx
        .updateTable('counters')
        .set({ n: sql`n + 1` })
        .where('id', '=', second)
        .execute();
      return name;
    };
    const results = await Promise.allSettled([
      new BatchedTransactionRunner(dbA).run(unit('a', 1, 2)),
      new BatchedTransactionRunner(dbB).run(unit('b', 2, 1)),
    ]);
    expect(results).toEqual([
      { status: 'fulfilled', value: 'a' },
      { status: 'fulfilled', value: 'b' },
    ]);
    // One of them lost the race once and ran again.
    expect(attempts.a + attempts.b).toBe(3);
    const rows = await dbA.selectFrom('counters').selectAll().orderBy('id').execute();
    expect(rows).toEqual([
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ]);
  });

  it('fails a unit at once for any other error', async () => {
    const runner = new BatchedTransactionRunner(a.db as unknown as Kysely<Counters>);
    let attempts = 0;
    const failing = runner.run(async (trx) => {
      attempts += 1;
      await trx.insertInto('counters').values({ id: 1, n: 0 }).execute();
    });
    await expect(failing).rejects.toMatchObject({ code: '23505' });
    expect(attempts).toBe(1);
  });
});
