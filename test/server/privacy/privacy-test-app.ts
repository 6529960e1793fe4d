/**
 * The app on a real migrated database (the run's backend) with its privacy policy made the way start.ts
 * makes it (options: default level, a file database for the key file), plus helpers that
 * read the schema itself: rows of every table holding given values, and seeding a row of
 * a user into every table with a `user_id` column (so a table added later is covered).
 */
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { buildApp, type AppOptions } from '../../../server/app.js';
import type { DatabaseHandle } from '../../../server/platform/db/connection.js';
import type { Database } from '../../../server/platform/db/database.js';
import {
  createPrivacyPolicy,
  type PrivacyPolicyOptions,
  type PrivacyPolicyService,
} from '../../../server/privacy/privacy-policy.service.js';
import { openTestDatabase, TEST_BACKEND, withoutForeignKeys } from '../../helpers/test-database.js';
import { headerMinter } from '../../helpers/test-app.js';

export interface PrivacyHarness {
  app: FastifyInstance;
  database: DatabaseHandle;
  policy: PrivacyPolicyService;
  userHeaders(userId: string, scopes?: Array<'read' | 'write'>): Promise<Record<string, string>>;
  adminHeaders(): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export interface PrivacyHarnessOptions extends Partial<Omit<AppOptions, 'database' | 'privacy'>> {
  dbPath?: string;
  policy?: Omit<PrivacyPolicyOptions, 'dbPath'>;
}

export async function privacyHarness(options: PrivacyHarnessOptions = {}): Promise<PrivacyHarness> {
  const { dbPath, policy: policyOptions, ...appOptions } = options;
  const opened = await openTestDatabase(dbPath);
  const { database } = opened;
  const policy = await createPrivacyPolicy(database.db, { ...policyOptions, ...opened.privacy });
  const app = await buildApp({ proxy: false, ...appOptions, database, privacy: policy, rateLimit: null });
  await app.ready();
  return {
    app,
    database,
    policy,
    ...headerMinter(database),
    async close() {
      await app.close();
      await opened.close();
    },
  };
}

interface ColumnInfo {
  name: string;
  type: string;
}

/** Every table of the schema (the catalogue of the run's backend), migrations' bookkeeping left out. */
export async function allTables(db: Kysely<Database>): Promise<string[]> {
  const result =
    TEST_BACKEND === 'postgres'
      ? await sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables
          WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name NOT LIKE 'kysely_%'
          ORDER BY table_name COLLATE "C"`.execute(db)
      : await sql<{ name: string }>`SELECT name FROM sqlite_master
          WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%' ORDER BY name`.execute(db);
  return result.rows.map((row) => row.name);
}

export async function columnsOf(db: Kysely<Database>, table: string): Promise<ColumnInfo[]> {
  const result =
    TEST_BACKEND === 'postgres'
      ? await sql<ColumnInfo>`SELECT column_name AS name, data_type AS type FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = ${table} ORDER BY ordinal_position`.execute(db)
      : await sql<ColumnInfo>`SELECT name, type FROM pragma_table_info(${table})`.execute(db);
  return result.rows;
}

/** Tables with a `user_id` column. */
export async function tablesWithUserId(db: Kysely<Database>): Promise<string[]> {
  const out: string[] = [];
  for (const table of await allTables(db)) if ((await columnsOf(db, table)).some((c) => c.name === 'user_id')) out.push(table);
  return out;
}

const BINARY = /blob|bytea/i;

/** Where any text column of any table holds one of `values`: `table.column` -> rows. */
export async function rowsHolding(db: Kysely<Database>, values: readonly string[]): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  for (const table of await allTables(db)) {
    for (const column of await columnsOf(db, table)) {
      if (BINARY.test(column.type)) continue;
      const result = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}
        WHERE CAST(${sql.ref(column.name)} AS TEXT) IN (${sql.join(values)})`.execute(db);
      const n = Number(result.rows[0]?.n ?? 0);
      if (n > 0) found[`${table}.${column.name}`] = n;
    }
  }
  return found;
}

let counter = 1_000;

/**
 * One row of `key` in every table with a `user_id` column, whatever its columns (foreign keys
 * not enforced while seeding: the rows only need to exist). Text columns get values naming
 * the table and key but never equal to it.
 */
export async function seedEveryUserTable(db: Kysely<Database>, key: string): Promise<string[]> {
  const tables = await tablesWithUserId(db);
  await withoutForeignKeys(db, async (trx) => {
    for (const table of tables) {
      const columns = await columnsOf(trx, table);
      const values = columns.map((column) => {
        counter += 1;
        if (column.name === 'user_id') return key;
        if (column.name === 'tracking_level') return 'full';
        if (/int/i.test(column.type)) return counter;
        if (/real|double|float|numeric/i.test(column.type)) return 0.5;
        if (BINARY.test(column.type)) return Buffer.from([1, 2, 3]);
        return `seed:${table}.${column.name}#${counter}`;
      });
      // A table with one row per user may have one from the API already: that one counts.
      await sql`INSERT INTO ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c.name)))})
        VALUES (${sql.join(values)}) ON CONFLICT DO NOTHING`.execute(trx);
    }
  });
  return tables;
}

/** Rows of `keys` per table with a `user_id` column. */
export async function countUserRows(db: Kysely<Database>, keys: readonly string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of await tablesWithUserId(db)) {
    const result = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)} WHERE user_id IN (${sql.join(keys)})`.execute(db);
    counts[table] = Number(result.rows[0]?.n ?? 0);
  }
  return counts;
}
