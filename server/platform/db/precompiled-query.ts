/**
 * Hot queries built once instead of per call: kysely builds a query as an immutable
 * operation tree (frozen, visited by plugins, compiled) on every execution, which
 * costs more than SQLite running the small statements of the write path. A template
 * compiles its builder once per dialect (keyed by the executor's adapter, shared by a
 * Kysely instance and its transactions) and per argument count, with marker values in
 * place of the arguments, then runs the same SQL with the real arguments. The SQL is
 * still kysely's, compiled for the active dialect.
 */
import { CompiledQuery, type Compilable, type Kysely, type QueryResult, type SqliteDatabase } from 'kysely';

const MARKER = '\u0000recsvc-arg:';

interface Compiled {
  sql: string;
  /** For each parameter: the argument's index, or a constant the builder put in itself. */
  slots: ({ arg: number } | { value: unknown })[];
}

/** A query compiled once per dialect and argument count, run with fresh arguments. */
export function queryTemplate<DB, O>(build: (db: Kysely<DB>, args: readonly unknown[]) => Compilable<O>) {
  const byAdapter = new WeakMap<object, Map<number, Compiled>>();

  function compiled(db: Kysely<DB>, count: number): Compiled {
    const adapter = db.getExecutor().adapter;
    let byCount = byAdapter.get(adapter);
    if (!byCount) byAdapter.set(adapter, (byCount = new Map<number, Compiled>()));
    let entry = byCount.get(count);
    if (!entry) {
      entry = compile(db, count);
      byCount.set(count, entry);
    }
    return entry;
  }

  function compile(db: Kysely<DB>, count: number): Compiled {
    const markers = Array.from({ length: count }, (_, i) => `${MARKER}${i}`);
    const { sql, parameters } = build(db, markers).compile();
    // A marker inlined into the SQL text (not a parameter) could not be replaced per call.
    if (sql.includes(MARKER)) throw new Error('queryTemplate: an argument was inlined into the SQL');
    const slots = parameters.map((p) =>
      typeof p === 'string' && p.startsWith(MARKER) ? { arg: Number(p.slice(MARKER.length)) } : { value: p },
    );
    return { sql, slots };
  }

  /** Runs the template with `args` (the same count and order the builder was given). */
  return function execute(db: Kysely<DB>, args: readonly unknown[]): Promise<QueryResult<O>> {
    const { sql, slots } = compiled(db, args.length);
    const parameters = slots.map((s) => ('arg' in s ? args[s.arg] : s.value));
    return executeCompiled<DB, O>(db, sql, parameters);
  };
}

/**
 * SQLite connections whose transactions run compiled statements on the connection directly
 * (by the dialect's adapter, which a Kysely instance shares with its transactions). A
 * transaction holds SQLite's only connection until it ends, so its statements may go
 * straight to better-sqlite3: kysely's way there (a connection provider, its queue, the
 * result transformer: a chain of async functions per statement) allocated about a quarter
 * of what an interaction write did, for statements that run in microseconds. Outside a
 * transaction kysely's connection lock stays: a read must not see a batch not yet committed.
 */
const directSqlite = new WeakMap<object, SqliteDatabase>();

/** Lets `db`'s transactions run compiled statements on `database` directly (see directSqlite). */
export function runTransactionsDirectly<DB>(db: Kysely<DB>, database: SqliteDatabase): void {
  directSqlite.set(db.getExecutor().adapter, database);
}

/**
 * Runs compiled SQL with its parameters: inside an SQLite transaction on the connection
 * directly, giving what kysely's SQLite driver gives (rows for a reader; affected rows and
 * the insert id otherwise); everywhere else through kysely.
 */
export function executeCompiled<DB, O>(db: Kysely<DB>, sql: string, parameters: readonly unknown[]): Promise<QueryResult<O>> {
  const direct = db.isTransaction ? directSqlite.get(db.getExecutor().adapter) : undefined;
  if (direct === undefined) return db.executeQuery<O>(CompiledQuery.raw(sql, parameters as unknown[]));
  try {
    const statement = direct.prepare(sql);
    if (statement.reader) return Promise.resolve({ rows: statement.all(parameters) as O[] });
    const { changes, lastInsertRowid } = statement.run(parameters);
    return Promise.resolve({ numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] });
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
