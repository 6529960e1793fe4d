import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite, type DatabaseHandle } from '../../../server/platform/db/connection.js';
import { queryTemplate } from '../../../server/platform/db/precompiled-query.js';

interface TestDb {
  items: { id: string; kind: string; n: number };
}

let handle: DatabaseHandle;
let db: Kysely<TestDb>;
beforeAll(async () => {
  handle = openSqlite(':memory:');
  db = handle.db as unknown as Kysely<TestDb>;
  await db.schema
    .createTable('items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text')
    .addColumn('n', 'integer')
    .execute();
  await db
    .insertInto('items')
    .values([
      { id: 'a', kind: 'x', n: 1 },
      { id: 'b', kind: 'x', n: 2 },
      { id: 'c', kind: 'y', n: 3 },
    ])
    .execute();
});
afterAll(() => handle.close());

describe('queryTemplate', () => {
  it('runs one compiled statement with fresh arguments, keeping the constants the builder added', async () => {
    const byKind = queryTemplate<TestDb, { id: string }>((q, [kind]) =>
      q
        .selectFrom('items')
        .select('id')
        .where('kind', '=', kind as string)
        .where('n', '>', 1)
        .orderBy('id'),
    );
    expect((await byKind(db, ['x'])).rows).toEqual([{ id: 'b' }]);
    expect((await byKind(db, ['y'])).rows).toEqual([{ id: 'c' }]);
  });

  it('compiles once per argument count (IN lists of different lengths)', async () => {
    const byIds = queryTemplate<TestDb, { id: string }>((q, ids) =>
      q
        .selectFrom('items')
        .select('id')
        .where('id', 'in', ids as string[])
        .orderBy('id'),
    );
    expect((await byIds(db, ['a', 'c'])).rows).toEqual([{ id: 'a' }, { id: 'c' }]);
    expect((await byIds(db, ['b'])).rows).toEqual([{ id: 'b' }]);
    expect((await byIds(db, ['c', 'b', 'a'])).rows.map((r) => r.id)).toEqual(['a', 'b', 'c']);
  });

  it('refuses a builder that inlines an argument into the SQL text', () => {
    const inlined = queryTemplate<TestDb, { id: string }>((q, [kind]) =>
      q
        .selectFrom('items')
        .select('id')
        .where('kind', '=', sql.lit(kind as string)),
    );
    expect(() => inlined(db, ['x'])).toThrow(/inlined/);
  });
});

describe('inside an SQLite transaction (statements on the connection directly)', () => {
  const insert = queryTemplate<TestDb, never>((q, [id, kind, n]) =>
    q.insertInto('items').values({ id: id as string, kind: kind as string, n: n as number }),
  );
  const bump = queryTemplate<TestDb, never>((q, [kind]) =>
    q
      .updateTable('items')
      .set((eb) => ({ n: eb('n', '+', 10) }))
      .where('kind', '=', kind as string),
  );
  const byKind = queryTemplate<TestDb, { id: string; n: number }>((q, [kind]) =>
    q
      .selectFrom('items')
      .select(['id', 'n'])
      .where('kind', '=', kind as string)
      .orderBy('id'),
  );

  it('gives what kysely gives: rows for a reader, affected rows and the insert id for a write', async () => {
    await db
      .transaction()
      .execute(async (trx) => {
        const inserted = await insert(trx, ['t1', 'z', 5]);
        expect(inserted.numAffectedRows).toBe(1n);
        expect(typeof inserted.insertId).toBe('bigint');
        expect(inserted.rows).toEqual([]);
        expect((await bump(trx, ['z'])).numAffectedRows).toBe(1n);
        expect((await byKind(trx, ['z'])).rows).toEqual([{ id: 't1', n: 15 }]);
        throw new Error('roll back');
      })
      .catch((error: Error) => expect(error.message).toBe('roll back'));
    expect((await byKind(db, ['z'])).rows).toEqual([]);
  });

  it('rejects (does not throw) with the driver error, and the transaction goes on', async () => {
    await db.transaction().execute(async (trx) => {
      const duplicate = insert(trx, ['a', 'x', 1]);
      expect(duplicate).toBeInstanceOf(Promise);
      await expect(duplicate).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
      await insert(trx, ['t2', 'w', 1]);
    });
    expect((await byKind(db, ['w'])).rows).toEqual([{ id: 't2', n: 1 }]);
    await db.deleteFrom('items').where('id', '=', 't2').execute();
  });

  it('a read outside the transaction waits for it: it never sees writes not yet committed', async () => {
    const trx = await db.startTransaction().execute();
    await insert(trx, ['t3', 'v', 1]);
    let read: { id: string; n: number }[] | undefined;
    const outside = byKind(db, ['v']).then((result) => (read = result.rows));
    await new Promise((resolve) => setImmediate(resolve));
    expect(read).toBeUndefined();
    await trx.rollback().execute();
    await outside;
    expect(read).toEqual([]);
  });
});
