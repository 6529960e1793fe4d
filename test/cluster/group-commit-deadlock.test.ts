/**
 * Two instances' group commits on one PostgreSQL database (each its own pool and runner, as
 * two `serve` processes have): their batches commit one after the other, so rows locked in
 * opposite orders do not deadlock (bench:cluster's interactions on two instances were 500s
 * and 1 s waits before); a unit a deadlock with another writer aborts runs again in the
 * next batch; a unit failing for any other reason still fails at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { BatchedTransactionRunner } from '../../server/platform/db/batched-transactions.js';
import { openDatabase, type DatabaseHandle } from '../../server/platform/db/connection.js';
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

  async function counters(): Promise<Array<{ id: number; n: number }>> {
    return (a.db as unknown as Kysely<Counters>).selectFrom('counters').selectAll().orderBy('id').execute();
  }

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await schema?.drop();
  });

  it("commits two instances' batches one after the other instead of letting them wait on each other's rows", async () => {
    const order: string[] = [];
    let release!: () => void;
    const aHolds = new Promise<void>((resolve) => (release = resolve));
    let aStarted!: () => void;
    const started = new Promise<void>((resolve) => (aStarted = resolve));
    const first = new BatchedTransactionRunner(a.db as unknown as Kysely<Counters>).run(async (trx) => {
      order.push('a begins');
      await trx
        .updateTable('counters')
        .set({ n: sql`n + 1` })
        .where('id', '=', 1)
        .execute();
      aStarted();
      await aHolds;
      await trx
        .updateTable('counters')
        .set({ n: sql`n + 1` })
        .where('id', '=', 2)
        .execute();
      order.push('a ends');
    });
    await started;
    const second = new BatchedTransactionRunner(b.db as unknown as Kysely<Counters>).run(async (trx) => {
      order.push('b begins');
      await trx
        .updateTable('counters')
        .set({ n: sql`n + 1` })
        .where('id', '=', 2)
        .execute();
      await trx
        .updateTable('counters')
        .set({ n: sql`n + 1` })
        .where('id', '=', 1)
        .execute();
    });
    // B's batch waits for A's batch lock (not for a row): it has not begun while A holds its rows.
    await waitForLockWait(a.db, 'pg_advisory_xact_lock');
    expect(order).toEqual(['a begins']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['a begins', 'a ends', 'b begins']);
    expect(await counters()).toEqual([
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ]);
  });

  it('runs a unit PostgreSQL chose as a deadlock victim again in the next batch, so both writes succeed once each', async () => {
    const dbA = a.db as unknown as Kysely<Counters>;
    let attempts = 0;
    let holdsRow1!: () => void;
    const unitHoldsRow1 = new Promise<void>((resolve) => (holdsRow1 = resolve));
    let otherWaits!: () => void;
    const otherWaiting = new Promise<void>((resolve) => (otherWaits = resolve));
    const unit = new BatchedTransactionRunner(dbA).run(async (trx) => {
      attempts += 1;
      await trx
        .updateTable('counters')
        .set({ n: sql`n + 1` })
        .where('id', '=', 1)
        .execute();
      holdsRow1();
      await otherWaiting;
      await trx
        .updateTable('counters')
        .set({ n: sql`n + 1` })
        .where('id', '=', 2)
        .execute();
    });
    // Another writer (not a batch) takes row 2 and waits for row 1; only then does the unit ask
    // for row 2. The other's deadlock check comes after 10 s, the unit's after PostgreSQL's 1 s:
    // the unit is the one aborted, whatever the load.
    const other = (b.db as unknown as Kysely<Counters>).transaction().execute(async (trx) => {
      await unitHoldsRow1;
      await sql`SET LOCAL deadlock_timeout = '10s'`.execute(trx);
      await trx
        .updateTable('counters')
        .set({ n: sql`n + 1` })
        .where('id', '=', 2)
        .execute();
      await trx
        .updateTable('counters')
        .set({ n: sql`n + 1` })
        .where('id', '=', 1)
        .execute();
    });
    await unitHoldsRow1;
    await waitForLockWait(a.db, 'update "counters"');
    otherWaits();
    await expect(Promise.all([unit, other])).resolves.toBeDefined();
    expect(attempts).toBe(2);
    expect(await counters()).toEqual([
      { id: 1, n: 4 },
      { id: 2, n: 4 },
    ]);
  }, 20_000);

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

/** Resolves once some session of the database waits for a lock in a statement containing `text`. */
async function waitForLockWait(db: Kysely<any>, text: string): Promise<void> {
  for (;;) {
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM pg_stat_activity
      WHERE wait_event_type = 'Lock' AND datname = current_database() AND query ILIKE ${`%${text}%`}`.execute(db);
    if (Number(rows[0]?.n) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
