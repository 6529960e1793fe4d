/**
 * Migrations 0001-0019 are frozen: when they changed how they spell types (so PostgreSQL
 * gets bigint, double precision and identity columns) the SQLite schema they produce had
 * to stay byte-identical. The fixture is sqlite_master as those migrations produced it
 * before that change.
 */
import { readFileSync } from 'node:fs';
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../server/platform/db/connection.js';
import { MIGRATIONS } from '../../../server/platform/db/migrations/index.js';

interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

const frozen = JSON.parse(readFileSync(new URL('./fixtures/sqlite-schema-0019.json', import.meta.url), 'utf8')) as SchemaObject[];

describe('the SQLite schema of migrations 0001-0019', () => {
  it('is byte-identical to the one they produced before they became portable', async () => {
    const database = await openDatabase(':memory:');
    expect(database.dialect).toBe('sqlite');
    const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => ({ ...MIGRATIONS }) } });
    expect((await migrator.migrateTo('0019-settings')).error).toBeUndefined();
    const { rows: objects } = await sql<SchemaObject>`SELECT type, name, tbl_name, sql FROM sqlite_master
      WHERE name NOT LIKE 'kysely_%' ORDER BY name`.execute(database.db);
    await database.close();
    expect(frozen.length).toBeGreaterThan(30);
    expect(objects).toEqual(frozen);
  });
});
