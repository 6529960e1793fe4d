import { Migrator, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openSqlite } from '../../../server/db/connection.js';
import { migrateToLatest } from '../../../server/db/migrate.js';
import { MIGRATIONS } from '../../../server/db/migrations/index.js';

const migrator = (db: Kysely<any>): Migrator => new Migrator({ db, provider: { getMigrations: async () => ({ ...MIGRATIONS }) } });

async function tableSql(db: Kysely<any>, name: string): Promise<string> {
  const row = await db.selectFrom('sqlite_master').select('sql').where('name', '=', name).executeTakeFirstOrThrow();
  return String(row.sql);
}

describe('migration 0013: affinities clustered by their primary key', () => {
  it('keeps every affinity, keeps the key unique, and migrates down again', async () => {
    const { db, close } = openSqlite(':memory:');
    expect((await migrator(db).migrateTo('0012-interactions-drop-user-index')).error).toBeUndefined();
    const rows = [
      { user_id: 'u1', kind: 'author', target: 'a1', score: 1.5, as_of_ms: 1000 },
      { user_id: 'u1', kind: 'tag', target: 'birds', score: -2, as_of_ms: 2000 },
      { user_id: 'u2', kind: 'author', target: 'a1', score: 0.25, as_of_ms: 3000 },
    ];
    await db.insertInto('user_affinities').values(rows).execute();
    expect(await tableSql(db, 'user_affinities')).not.toMatch(/WITHOUT ROWID/i);

    expect(await migrateToLatest(db)).toContain('0013-affinities-clustered');
    expect(await tableSql(db, 'user_affinities')).toMatch(/WITHOUT ROWID/i);
    const after = await db.selectFrom('user_affinities').selectAll().orderBy('user_id').orderBy('kind').execute();
    expect(after).toEqual(rows);
    await expect(db.insertInto('user_affinities').values(rows[0]!).execute()).rejects.toThrow(/UNIQUE|PRIMARY KEY/);

    expect((await migrator(db).migrateTo('0012-interactions-drop-user-index')).error).toBeUndefined();
    expect(await tableSql(db, 'user_affinities')).not.toMatch(/WITHOUT ROWID/i);
    expect(await db.selectFrom('user_affinities').selectAll().orderBy('user_id').orderBy('kind').execute()).toEqual(rows);
    await close();
  });
});
