/**
 * Where a user's data lives, found from the schema rather than listed by hand: every table
 * with a `user_id` column holds rows of one user each (raw id in the user's own tables,
 * pseudonym in the analytics tables, either until the pseudonymisation backfill ran), so a
 * table added later is exported and erased without a change here. What other features hold
 * of a user besides (refresh tokens, the author of a setting) is theirs to export and erase:
 * user-data.types.ts.
 * Column names ending in `_hash`, PKCE challenges and binary columns never leave the service.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../platform/db/database.js';
import { schemaTables } from '../platform/db/schema-tables.js';

export interface UserTable {
  name: string;
  /** Columns an export may show. */
  exportColumns: string[];
}

/** Tables a level change to `none` keeps: the user's settings and credentials, not tracking data. */
export const SETTINGS_AND_CREDENTIAL_TABLES: ReadonlySet<string> = new Set([
  'privacy_settings',
  'user_settings',
  'tokens',
  'oauth_codes',
  'oauth_consents',
  'oauth_token_families',
]);

/** Event-level analytics rows: what `limited` does not keep. */
export const EVENT_LEVEL_TABLES: ReadonlySet<string> = new Set(['analytics_events', 'experiment_impressions', 'interleaving_impressions']);

const HIDDEN_COLUMN = /(_hash|^code_challenge|^client_secret)$/;

function isBinary(dataType: string): boolean {
  return /blob|bytea/i.test(dataType);
}

/** Every table with a `user_id` column, in name order (read from this deployment's live schema). */
export async function findUserTables(db: Kysely<Database>): Promise<UserTable[]> {
  const tables = await schemaTables(db);
  return tables
    .filter((table) => !table.isView && table.columns.some((column) => column.name === 'user_id'))
    .map((table) => ({
      name: table.name,
      exportColumns: table.columns.filter((c) => !HIDDEN_COLUMN.test(c.name) && !isBinary(c.dataType)).map((c) => c.name),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The rows of `keys` (raw id and pseudonym) in a user table, visible columns only. */
export async function selectUserRows(db: Kysely<Database>, table: UserTable, keys: readonly string[]): Promise<Record<string, unknown>[]> {
  const columns = sql.join(table.exportColumns.map((column) => sql.ref(column)));
  const result = await sql<Record<string, unknown>>`SELECT ${columns} FROM ${sql.table(table.name)}
    WHERE user_id IN (${sql.join(keys)}) ORDER BY 1`.execute(db);
  return result.rows;
}

/** Deletes the rows of `keys` from a user table; the number deleted. */
export async function deleteUserRows(trx: Transaction<Database>, table: string, keys: readonly string[]): Promise<number> {
  const result = await sql`DELETE FROM ${sql.table(table)} WHERE user_id IN (${sql.join(keys)})`.execute(trx);
  return Number(result.numAffectedRows ?? 0n);
}
