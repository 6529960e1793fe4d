/**
 * Migration 0031 on an SQLite database written by the release before it (the rows and checks:
 * fixtures/release-0030-posts.ts; the same on PostgreSQL in test/postgres/post-identity-migration.test.ts).
 */
import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openSqlite } from '../../../server/platform/db/connection.js';
import { MIGRATIONS } from '../../../server/platform/db/migrations/index.js';
import { BEFORE_0031, checkMigration0031, writeRelease0030Rows } from './fixtures/release-0030-posts.js';

describe('migration 0031 on SQLite: posts identified by their uri', () => {
  it('fills origin_host, renames duplicated uris keeping their interactions, indexes uri uniquely, adds empty mappings, and migrates down', async () => {
    const { db, close } = openSqlite(':memory:');
    try {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => ({ ...MIGRATIONS }) } });
      expect((await migrator.migrateTo(BEFORE_0031)).error).toBeUndefined();
      await writeRelease0030Rows(db);
      await checkMigration0031(db, migrator);
    } finally {
      await close();
    }
  });
});
