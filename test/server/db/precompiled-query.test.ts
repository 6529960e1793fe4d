import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite, type DatabaseHandle } from '../../../server/db/connection.js';
import { queryTemplate } from '../../../server/db/precompiled-query.js';

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
