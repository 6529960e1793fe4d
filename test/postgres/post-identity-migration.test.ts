/**
 * Migration 0031 on a PostgreSQL schema written by the release before it (the rows and checks:
 * test/server/db/fixtures/release-0030-posts.ts, shared with the SQLite test).
 */
import { Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../server/platform/db/connection.js';
import { MIGRATIONS } from '../../server/platform/db/migrations/index.js';
import { BEFORE_0031, checkMigration0031, writeRelease0030Rows } from '../server/db/fixtures/release-0030-posts.js';
import { createTestSchema, postgresUnavailable, suiteTitle, type TestSchema } from './postgres-test-database.js';

const unavailable = await postgresUnavailable();

describe.skipIf(unavailable !== undefined)(suiteTitle('migration 0031: posts identified by their uri', unavailable), () => {
  let schema: TestSchema;
  let database: DatabaseHandle;

  beforeAll(async () => {
    schema = await createTestSchema();
    database = await openDatabase(schema.url);
  });

  afterAll(async () => {
    try {
      await database?.close();
    } finally {
      await schema?.drop();
    }
  });

  it('fills origin_host, renames duplicated uris keeping their interactions, indexes uri uniquely, adds empty mappings, and migrates down', async () => {
    const migrator = new Migrator({
      db: database.db,
      provider: { getMigrations: async () => ({ ...MIGRATIONS }) },
      migrationTableSchema: schema.name,
    });
    expect((await migrator.migrateTo(BEFORE_0031)).error).toBeUndefined();
    await writeRelease0030Rows(database.db);
    await checkMigration0031(database.db, migrator);
  });
});
