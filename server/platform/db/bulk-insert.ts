/**
 * Multi-row INSERTs (and upserts) with a pre-built statement per batch size, skipping the
 * query builder: the posts feature's one write path and the bulk loads of demo data and
 * benchmarks. SQLite allows 32,766 bound values per statement.
 */
import { CompiledQuery, SqliteAdapter, sql, type Kysely } from 'kysely';
import { attachStaging, withStagingDatabase, type StagingDatabase } from './bulk-staging.js';

const MAX_VALUES = 30_000;

/** Rows of `width` values per statement of bulkInsert: a caller handing rows over in parts of a multiple of this reuses one statement. */
export function rowsPerStatement(width: number): number {
  return Math.max(1, Math.floor(MAX_VALUES / width));
}

/**
 * On a conflict on `target` (a unique key), replace the stored row's other columns with
 * the new values (an upsert). Rows of one call must not share a key: PostgreSQL refuses
 * to update a row twice in one statement.
 */
export interface ReplaceOnConflict {
  target: readonly string[];
}

/** Bulk loads (demo seeding) write hundreds of megabytes of b-trees: up to 1 GiB of page cache, taken only as pages are touched. */
const BULK_LOAD_CACHE_KIB = 1_048_576;

function isSqlite(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter;
}

/**
 * Inserts `rows` (values in `columns` order) into `table` in as few statements as fit. A row
 * breaking a unique key or a NOT NULL column is an error (without `replace`), as is one
 * whose foreign key is enforced and broken; the caller's transaction is then to be rolled
 * back, since rows of the failed statement may be stored.
 */
export async function bulkInsert(
  db: Kysely<any>,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  replace?: ReplaceOnConflict,
): Promise<void> {
  const width = columns.length;
  await bulkInsertFilled(
    db,
    table,
    columns,
    rows.length,
    (r, values, at) => {
      const row = rows[r] as readonly unknown[];
      for (let c = 0; c < width; c++) values[at + c] = row[c];
    },
    replace,
  );
}

/**
 * bulkInsert with each row's values read from its properties named as `columns` (undefined
 * stored as NULL): no array per row is made, which for millions of rows costs seconds.
 */
export async function bulkInsertObjects<R extends object>(
  db: Kysely<any>,
  table: string,
  columns: readonly (keyof R & string)[],
  rows: readonly R[],
  replace?: ReplaceOnConflict,
): Promise<void> {
  await bulkInsertFilled(
    db,
    table,
    columns,
    rows.length,
    (r, values, at) => {
      const row = rows[r] as R;
      for (let c = 0; c < columns.length; c++) values[at + c] = row[columns[c] as keyof R] ?? null;
    },
    replace,
  );
}

/**
 * bulkInsert of `count` rows whose values (in `columns` order) `fill` writes into
 * `values[at ..]` for row `r` (0 ≤ r < count, in order): a bulk load of millions of rows
 * kept as parallel arrays makes no object or array per row.
 */
export async function bulkInsertFilled(
  db: Kysely<any>,
  table: string,
  columns: readonly string[],
  count: number,
  fill: (r: number, values: unknown[], at: number) => void,
  replace?: ReplaceOnConflict,
): Promise<void> {
  if (count === 0) return;
  const width = columns.length;
  const perBatch = rowsPerStatement(width);
  const sqlite = isSqlite(db);
  // SQLite numbers `?` itself; PostgreSQL needs $1..$n (at most 65,535 per statement: MAX_VALUES keeps under it).
  const tuples = (rows: number): string =>
    sqlite
      ? Array<string>(rows)
          .fill(`(${columns.map(() => '?').join(',')})`)
          .join(',')
      : Array.from({ length: rows }, (_, r) => `(${columns.map((_, c) => `$${r * width + c + 1}`).join(',')})`).join(',');
  // SQLite: a multi-row INSERT that one of its rows could abort (through a unique key, a NOT
  // NULL column or an enforced foreign key) first copies each page it changes to a statement
  // journal, a temporary file, so that it alone can be undone; inserting 2 million
  // interactions, that was a third of the cost. With OR IGNORE no row aborts it (a foreign
  // key still would: inBulkLoadTransaction leaves them to one check at the end), so none is
  // kept; a skipped row shows in the count of rows stored, and is an error as before. An
  // upsert's update can abort whatever the conflict clause says, so an upsert keeps its text.
  const counted = replace === undefined && sqlite;
  const head = `INSERT ${counted ? 'OR IGNORE ' : ''}INTO "${table}" (${columns.map((c) => `"${c}"`).join(',')}) VALUES `;
  const tail = replace ? conflictClause(columns, replace) : '';
  let fullSql: string | undefined;
  for (let start = 0; start < count; start += perBatch) {
    const rows = Math.min(perBatch, count - start);
    const full = rows === perBatch;
    const text = full ? (fullSql ??= head + tuples(perBatch) + tail) : head + tuples(rows) + tail;
    // One flat array of values, filled in place (Array.prototype.flat took a tenth of a bulk
    // load). Not reused: the query freezes it.
    const values = new Array<unknown>(rows * width);
    for (let r = 0; r < rows; r++) fill(start + r, values, r * width);
    const result = await db.executeQuery(CompiledQuery.raw(text, values));
    const stored = Number(result.numAffectedRows ?? 0n);
    if (counted && stored !== rows) {
      throw new Error(`bulk insert into ${table}: ${rows - stored} of ${rows} rows broke a unique key or a NOT NULL column`);
    }
  }
}

/** `ON CONFLICT (…) DO UPDATE SET c = excluded.c, …`: the same text in SQLite and PostgreSQL. */
function conflictClause(columns: readonly string[], replace: ReplaceOnConflict): string {
  const updated = columns.filter((c) => !replace.target.includes(c)).map((c) => `"${c}" = excluded."${c}"`);
  const target = replace.target.map((c) => `"${c}"`).join(',');
  return updated.length === 0 ? ` ON CONFLICT (${target}) DO NOTHING` : ` ON CONFLICT (${target}) DO UPDATE SET ${updated.join(', ')}`;
}

/** How inBulkLoadTransaction may go about the load. */
export interface BulkLoadTransactionOptions {
  /**
   * SQLite: write the load through a rollback journal instead of the WAL when this connection
   * is the only one on the file (see withRollbackJournal). For a connection alone on its file
   * by design (seeding scripts, the benchmark); a serving process keeps the WAL, which lets its
   * background checkpointer and other instances open the file meanwhile.
   */
  rollbackJournal?: boolean;
  /**
   * Tables whose rows' foreign keys `work` has checked itself (each referenced row looked up
   * before writing): the check before the commit skips them (for 2 million interactions, 0.7 s).
   */
  foreignKeysChecked?: readonly string[];
  /** SQLite: attach a staging file for the load, handed to `work` (see bulk-staging.ts). */
  staging?: boolean;
}

/**
 * Runs `work` in one transaction made for a bulk load (demo seeding, benchmarks), on a
 * connection nothing else uses meanwhile (the settings are the connection's):
 * - a large page cache (up to 1 GiB, taken only as pages are touched: the indexes of
 *   millions of rows then stay in memory instead of spilling);
 * - SQLite: foreign keys not enforced row by row (enforced, they make every multi-row insert
 *   keep a statement journal, see bulkInsert) but checked once over the whole database before
 *   the commit (but for the tables of `foreignKeysChecked`): a violation is an error and
 *   nothing is committed;
 * - with `rollbackJournal`, see withRollbackJournal;
 * - with `staging`, a staging file attached meanwhile, handed to `work`.
 * The connection's settings are restored afterwards.
 */
export async function inBulkLoadTransaction<DB, T>(
  db: Kysely<DB>,
  work: (trx: Kysely<DB>, staging: StagingDatabase | undefined) => Promise<T>,
  options: BulkLoadTransactionOptions = {},
): Promise<T> {
  if (!isSqlite(db)) return db.transaction().execute((trx) => work(trx, undefined));
  const cache = await sql<{ cache_size: number }>`PRAGMA cache_size`.execute(db);
  const keys = await sql<{ foreign_keys: number }>`PRAGMA foreign_keys`.execute(db);
  await sql.raw(`PRAGMA cache_size = -${BULK_LOAD_CACHE_KIB}`).execute(db);
  await sql`PRAGMA foreign_keys = OFF`.execute(db);
  const inTransaction = (staging: StagingDatabase | undefined) =>
    db.transaction().execute(async (trx) => {
      if (staging) await attachStaging(trx, staging);
      const result = await work(trx, staging);
      await checkForeignKeys(trx, options.foreignKeysChecked ?? []);
      return result;
    });
  const transaction = () => (options.staging ? withStagingDatabase(db, inTransaction) : inTransaction(undefined));
  try {
    return await (options.rollbackJournal ? withRollbackJournal(db, transaction) : transaction());
  } finally {
    await sql.raw(`PRAGMA foreign_keys = ${Number(keys.rows[0]?.foreign_keys ?? 1) ? 'ON' : 'OFF'}`).execute(db);
    await sql.raw(`PRAGMA cache_size = ${Number(cache.rows[0]?.cache_size ?? -2000)}`).execute(db);
  }
}

/** SQLite: every foreign key of every table but `skipped` holds, or an error naming the first broken one. */
async function checkForeignKeys(trx: Kysely<any>, skipped: readonly string[]): Promise<void> {
  const tables = await sql<{
    name: string;
  }>`SELECT DISTINCT m.name AS name FROM main.sqlite_master m, pragma_foreign_key_list(m.name, 'main') f
    WHERE m.type = 'table' ORDER BY m.name`.execute(trx);
  for (const { name } of tables.rows) {
    if (skipped.includes(name)) continue;
    const broken = await sql<{ table: string; rowid: number; parent: string }>`PRAGMA main.foreign_key_check(${sql.id(name)})`.execute(trx);
    const first = broken.rows[0];
    if (first) {
      throw new Error(
        `bulk load: foreign keys broken by ${broken.rows.length} row(s), the first in ${first.table} (rowid ${first.rowid}) referring to ${first.parent}`,
      );
    }
  }
}

/**
 * SQLite runs `work` (one bulk-load transaction) with a rollback journal instead of the WAL
 * when it can. In WAL mode every page the load writes is written twice: into the WAL at the
 * commit, then into the database file by the checkpoint, with an fsync each (seeding the
 * large demo set, about 850 MB each way, 4-5 s of its commit). A rollback journal holds only
 * the former content of pages that existed before the transaction (pages added to the file
 * are not journaled; a rollback truncates them), so new pages are written once. Durability
 * is not weakened: synchronous is FULL meanwhile (an interrupted load is rolled back from the
 * journal at the next open, as a WAL's uncommitted frames are ignored), and WAL (with the
 * connection's synchronous setting) comes back afterwards.
 *
 * Leaving WAL needs the only connection to the file: when another holds it open (the serving
 * process's background checkpointer, another process), SQLite refuses at once (the busy
 * timeout is 0 for that statement) and `work` runs in WAL as before. A connection opening the
 * file during the load finds it locked until the commit (a WAL would have let it read).
 */
export async function withRollbackJournal<T>(db: Kysely<any>, work: () => Promise<T>): Promise<T> {
  const mode = await sql<{ journal_mode: string }>`PRAGMA main.journal_mode`.execute(db);
  if (mode.rows[0]?.journal_mode !== 'wal') return work();
  const busy = await sql<{ timeout: number }>`PRAGMA busy_timeout`.execute(db);
  const synchronous = await sql<{ synchronous: number }>`PRAGMA main.synchronous`.execute(db);
  let left = false;
  try {
    await sql`PRAGMA busy_timeout = 0`.execute(db);
    left = (await sql<{ journal_mode: string }>`PRAGMA main.journal_mode = DELETE`.execute(db)).rows[0]?.journal_mode === 'delete';
  } catch (error) {
    // SQLITE_BUSY: another connection holds the file.
    if ((error as { code?: unknown }).code !== 'SQLITE_BUSY') throw error;
  } finally {
    await sql.raw(`PRAGMA busy_timeout = ${Number(busy.rows[0]?.timeout ?? 5000)}`).execute(db);
  }
  if (!left) return work();
  try {
    await sql`PRAGMA main.synchronous = FULL`.execute(db);
    return await work();
  } finally {
    await sql`PRAGMA main.journal_mode = WAL`.execute(db);
    await sql.raw(`PRAGMA main.synchronous = ${Number(synchronous.rows[0]?.synchronous ?? 1)}`).execute(db);
  }
}

/**
 * Inside a transaction, runs `work` (a bulk load into an empty `table`) without the table's
 * secondary `indexes` (SQLite), then builds each again from its own stored definition: one
 * sort per index instead of a random b-tree insert per row. The unique keys stay (SQLite
 * cannot drop them). Other dialects keep their indexes. A failure leaves the indexes dropped
 * until the transaction is rolled back.
 */
export async function withIndexesBuiltAfter<T>(
  trx: Kysely<any>,
  table: string,
  indexes: readonly string[],
  work: () => Promise<T>,
): Promise<T> {
  if (!isSqlite(trx) || indexes.length === 0) return work();
  const stored = await sql<{ name: string; sql: string | null }>`SELECT name, sql FROM sqlite_master
    WHERE type = 'index' AND tbl_name = ${table} AND name IN (${sql.join(indexes)})`.execute(trx);
  const definitions = indexes.map((name) => {
    const definition = stored.rows.find((row) => row.name === name)?.sql;
    if (!definition) throw new Error(`no index ${name} on ${table} to build after a bulk load`);
    return definition;
  });
  for (const name of indexes) await sql`DROP INDEX ${sql.id(name)}`.execute(trx);
  const result = await work();
  for (const definition of definitions) await sql.raw(definition).execute(trx);
  return result;
}
