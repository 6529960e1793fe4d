/**
 * SQLite: a table of a bulk load built in a worker thread, in a staging file attached to the
 * loading connection, then copied into the empty table by `INSERT INTO t SELECT * FROM
 * staging.t`. With the same columns and indexes on both sides, SQLite copies that as raw
 * records and index entries, each b-tree in its own order (its "transfer optimisation", the
 * copy VACUUM makes): for 2 million interactions under a second, where inserting them took
 * 20 s, two thirds of it random inserts into a unique index. The worker does those inserts on
 * another core while the loading thread writes the other tables; the rows, their row ids and
 * every index entry end up as inserting the rows in the same order would leave them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { sql, SqliteAdapter, type Kysely } from 'kysely';

/** A staging file attached to the loading connection (see withStagingDatabase). */
export interface StagingDatabase {
  readonly path: string;
  /** Its name on the loading connection. */
  readonly schema: string;
}

/**
 * One column of staged rows, as arrays a worker receives without a copy of an object per row:
 * - `null`: NULL in every row;
 * - `strings`: row r's value is `dictionary[index[r]]`;
 * - `packed`: row r's value is `text.slice(ends[r - 1] ?? 0, ends[r])`;
 * - `numbers`: row r's value is `values[r]`;
 * - `isoTimes`: row r's value is `new Date(ms[r]).toISOString()`.
 */
export type StagedColumn =
  | { readonly kind: 'null' }
  | { readonly kind: 'strings'; readonly dictionary: readonly string[]; readonly index: Int32Array }
  | { readonly kind: 'packed'; readonly text: string; readonly ends: Int32Array }
  | { readonly kind: 'numbers'; readonly values: Float64Array }
  | { readonly kind: 'isoTimes'; readonly ms: Float64Array };

/**
 * How the staging worker builds the table so that SQLite then copies it b-tree by b-tree. The
 * copy needs the staged table declared exactly as the loading database's, with the same
 * indexes, the unique ones of its PRIMARY KEY and UNIQUE constraints included; those are
 * kept up row by row by SQLite, in random order of their keys (two thirds of inserting 2
 * million interactions). So the staging file first holds a table of the same columns without
 * constraints (`plainTable`), its rows inserted in order; then each constraint's index built
 * by one sort (`constraintIndexes`, under temporary names), the other indexes likewise
 * (`indexes`); then its schema is rewritten (writable_schema, in this scratch file only) to the
 * loading database's own definition (`tableSql`), the constraint indexes under the names
 * SQLite gives them (`sqlite_autoindex_<table>_<n>`). A table this cannot stage faithfully
 * (CHECK constraints, collations, generated columns, an INTEGER PRIMARY KEY, WITHOUT ROWID)
 * is staged with its own definition instead, its constraints kept up row by row.
 */
export interface StagingPlan {
  readonly plainTable: string | undefined;
  readonly constraintIndexes: readonly { readonly name: string; readonly temporaryName: string; readonly create: string }[];
  readonly indexes: readonly string[];
  readonly tableSql: string;
}

/** What the staging worker is started with. */
export interface StagingJob {
  readonly path: string;
  readonly pageSize: number;
  readonly plan: StagingPlan;
  readonly table: string;
  readonly columns: readonly string[];
  readonly values: readonly StagedColumn[];
  /** Rows are inserted in this order of positions (row ids follow it). */
  readonly order: Uint32Array;
}

const STAGING_SCHEMA = 'bulk_staging';

function isSqlite<DB>(db: Kysely<DB>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter;
}

/**
 * Runs `work` (which opens the bulk load's transaction and attaches the file first thing in it,
 * attachStaging) with a staging file for the load (SQLite; undefined elsewhere), detached and
 * deleted afterwards: SQLite detaches only outside a transaction.
 */
export async function withStagingDatabase<DB, T>(db: Kysely<DB>, work: (staging: StagingDatabase | undefined) => Promise<T>): Promise<T> {
  if (!isSqlite(db)) return work(undefined);
  const dir = mkdtempSync(join(tmpdir(), 'recsvc-staging-'));
  const staging = { path: join(dir, 'staging.db'), schema: STAGING_SCHEMA };
  try {
    return await work(staging);
  } finally {
    const attached = await sql<{ name: string }>`SELECT name FROM pragma_database_list WHERE name = ${staging.schema}`.execute(db);
    if (attached.rows.length > 0) await sql`DETACH DATABASE ${sql.id(staging.schema)}`.execute(db);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Attaches the staging file to the load's transaction, once it has begun: SQLite's write
 * transactions begin with `BEGIN IMMEDIATE` (sqlite-immediate.ts), which write-locks every
 * database attached at that moment, and the worker could then not write the staging file.
 */
export async function attachStaging<DB>(trx: Kysely<DB>, staging: StagingDatabase): Promise<void> {
  await sql`ATTACH DATABASE ${staging.path} AS ${sql.id(staging.schema)}`.execute(trx);
}

/**
 * Builds `table` (its definition and indexes read from the loading database) in the staging
 * file, in a worker thread (`script`): its rows from `values` in `order`. Resolves once built;
 * rejects with the worker's error (such as a row breaking a unique key). `stop` ends the worker.
 */
export async function stageTable<DB>(
  trx: Kysely<DB>,
  staging: StagingDatabase,
  script: URL,
  table: string,
  columns: readonly string[],
  values: readonly StagedColumn[],
  order: Uint32Array,
): Promise<{ built: Promise<void>; stop: () => Promise<void> }> {
  const pageSize = await sql<{ page_size: number }>`PRAGMA main.page_size`.execute(trx);
  const job: StagingJob = {
    path: staging.path,
    pageSize: Number(pageSize.rows[0]?.page_size ?? 4096),
    plan: await stagingPlan(trx, table),
    table,
    columns,
    values,
    order,
  };
  const worker = new Worker(script, { workerData: job });
  const built = new Promise<void>((resolve, reject) => {
    worker.once('message', (message: { error?: string }) =>
      message.error === undefined ? resolve() : reject(new Error(`staging ${table}: ${message.error}`)),
    );
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`staging worker of ${table} exited (code ${code}) before it was built`)));
  });
  // Awaited by the load, or rejected into the void when the load failed first.
  built.catch(() => undefined);
  return { built, stop: async () => void (await worker.terminate()) };
}

/** The staging plan of `table` of the loading database (see StagingPlan). */
async function stagingPlan<DB>(trx: Kysely<DB>, table: string): Promise<StagingPlan> {
  const stored = await sql<{ type: string; name: string; sql: string | null }>`SELECT type, name, sql FROM main.sqlite_master
    WHERE tbl_name = ${table} ORDER BY rowid`.execute(trx);
  const tableSql = stored.rows.find((row) => row.type === 'table')?.sql;
  if (!tableSql) throw new Error(`no table ${table} to stage`);
  const indexes = stored.rows.filter((row) => row.type === 'index' && row.sql !== null).map((row) => row.sql as string);
  const columns = await sql<{
    name: string;
    type: string;
    notnull: number;
    dflt_value: string | null;
    pk: number;
  }>`SELECT name, type, "notnull", dflt_value, pk
    FROM pragma_table_info(${table}, 'main')`.execute(trx);
  const list = await sql<{ name: string; origin: string; partial: number }>`SELECT name, origin, partial
    FROM pragma_index_list(${table}, 'main') WHERE origin IN ('pk', 'u') ORDER BY name`.execute(trx);
  const asDeclared = { plainTable: undefined, constraintIndexes: [], indexes, tableSql };
  const hasPrimaryKeyIndex = list.rows.some((index) => index.origin === 'pk');
  if (
    /\b(check|collate|generated|autoincrement)\b|\bas\s*\(|\bwithout\s+rowid\b/i.test(tableSql) ||
    (columns.rows.some((c) => c.pk > 0) && !hasPrimaryKeyIndex) ||
    list.rows.some((index) => index.partial !== 0 || !/^sqlite_autoindex_/.test(index.name))
  ) {
    return asDeclared;
  }
  const constraintIndexes = [];
  for (const [n, index] of list.rows.entries()) {
    const keys = await sql<{ name: string | null; desc: number; coll: string }>`SELECT name, "desc", coll
      FROM pragma_index_xinfo(${index.name}, 'main') WHERE "key" = 1 ORDER BY seqno`.execute(trx);
    if (keys.rows.some((key) => key.name === null || key.coll !== 'BINARY')) return asDeclared;
    const temporaryName = `staged_constraint_${n}`;
    const on = keys.rows.map((key) => `${quoted(key.name as string)}${key.desc ? ' DESC' : ''}`).join(', ');
    constraintIndexes.push({
      name: index.name,
      temporaryName,
      create: `CREATE UNIQUE INDEX ${quoted(temporaryName)} ON ${quoted(table)} (${on})`,
    });
  }
  const declarations = columns.rows.map(
    (c) => `${quoted(c.name)} ${c.type}${c.notnull ? ' NOT NULL' : ''}${c.dflt_value === null ? '' : ` DEFAULT (${c.dflt_value})`}`,
  );
  return { plainTable: `CREATE TABLE ${quoted(table)} (${declarations.join(', ')})`, constraintIndexes, indexes, tableSql };
}

function quoted(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/**
 * Copies the staged `table` into the loading database's `table`, which must be empty for
 * SQLite to copy records and index entries as they are (otherwise it inserts row by row: the
 * same rows, slower). Returns the number of rows copied.
 */
export async function insertFromStaging<DB>(trx: Kysely<DB>, staging: StagingDatabase, table: string): Promise<number> {
  const result = await sql`INSERT INTO main.${sql.id(table)} SELECT * FROM ${sql.id(staging.schema)}.${sql.id(table)}`.execute(trx);
  return Number(result.numAffectedRows ?? 0n);
}

/**
 * `(ms) => new Date(ms).toISOString()`, for millions of instants: the date part is made once
 * per day, the time of day by arithmetic.
 */
export function isoStrings(): (ms: number) => string {
  let day = NaN;
  let prefix = '';
  return (ms) => {
    const d = Math.floor(ms / 86_400_000);
    const inDay = ms - d * 86_400_000;
    if (!Number.isInteger(ms) || d < 0 || d > 2_932_896) return new Date(ms).toISOString(); // outside years 1970-9999
    if (d !== day) {
      day = d;
      prefix = new Date(d * 86_400_000).toISOString().slice(0, 11);
    }
    const h = Math.floor(inDay / 3_600_000);
    const m = Math.floor(inDay / 60_000) % 60;
    const sec = Math.floor(inDay / 1000) % 60;
    const milli = inDay % 1000;
    return `${prefix}${h < 10 ? '0' : ''}${h}:${m < 10 ? '0' : ''}${m}:${sec < 10 ? '0' : ''}${sec}.${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
  };
}
