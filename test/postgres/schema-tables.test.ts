/**
 * PostgreSQL: what the privacy export, erasure and retention read of the live schema
 * (server/platform/db/schema-tables.ts) is this deployment's schema alone. Another schema of
 * the same database — another deployment, another test run — neither adds its tables to a
 * user's data nor, when it is dropped meanwhile, fails the read (kysely's introspector read
 * every schema: `schema "..." does not exist` answered an export 500 while a test run beside it
 * dropped its schema).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../server/platform/db/connection.js';
import { migrateToLatest } from '../../server/platform/db/migrate.js';
import { schemaTables } from '../../server/platform/db/schema-tables.js';
import { findUserTables } from '../../server/privacy/user-data.repository.js';
import { createTestSchema, postgresUnavailable, suiteTitle, type TestSchema } from './postgres-test-database.js';

const unavailable = await postgresUnavailable();

describe.skipIf(unavailable !== undefined)(suiteTitle('tables of this schema alone', unavailable), () => {
  let ours: TestSchema;
  let other: TestSchema;
  let database: DatabaseHandle;

  beforeAll(async () => {
    ours = await createTestSchema();
    other = await createTestSchema();
    database = await openDatabase(ours.url, { poolSize: 2 });
    await migrateToLatest(database.db);
    // Another deployment's table with a user_id column, and one our schema does not have.
    await other.admin.query(`CREATE TABLE ${other.name}.notes_of_another_deployment (user_id text, note text)`);
  });

  afterAll(async () => {
    try {
      await database?.close();
    } finally {
      await ours?.drop();
      await other?.drop();
    }
  });

  it("lists this schema's tables with their columns, and none of another schema's", async () => {
    const tables = await schemaTables(database.db);
    expect(tables.every((table) => table.schema === ours.name)).toBe(true);
    expect(tables.map((table) => table.name)).not.toContain('notes_of_another_deployment');
    const interactions = tables.find((table) => table.name === 'interactions');
    expect(interactions?.columns.map((column) => column.name)).toEqual(expect.arrayContaining(['id', 'user_id', 'post_id', 'action_type']));
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = current_schema()`.execute(database.db);
    expect(tables).toHaveLength(Number(rows[0]!.n));
    const userTables = await findUserTables(database.db);
    expect(userTables.map((table) => table.name)).toContain('interactions');
    expect(userTables.map((table) => table.name)).not.toContain('notes_of_another_deployment');
  });

  it('answers while other schemas of the database are created and dropped', async () => {
    let stop = false;
    const churn = (async () => {
      while (!stop) {
        const passing = await createTestSchema();
        await passing.admin.query(`CREATE TABLE ${passing.name}.t (user_id text)`);
        await passing.drop();
      }
    })();
    try {
      for (let i = 0; i < 40; i++) expect((await findUserTables(database.db)).length).toBeGreaterThan(5);
    } finally {
      stop = true;
      await churn;
    }
  });
});
