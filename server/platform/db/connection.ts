/**
 * Opens the database: the embedded SQLite file by default, PostgreSQL for a postgres:// URL
 * (postgres-connection.ts). Everything dialect-specific lives in this folder.
 */
import SQLite from 'better-sqlite3';
import { Kysely } from 'kysely';
import { startBackgroundCheckpointer } from './background-checkpointer.js';
import { DatabaseOpenError, type DatabaseHandle } from './database-handle.js';
import type { Database } from './database.js';
import { exclusiveLock } from './exclusive-lock.js';
import type { OpenPostgresOptions } from './postgres-connection.js';
import { runTransactionsDirectly } from './precompiled-query.js';
import { ImmediateSqliteDialect } from './sqlite-immediate.js';
import { withStatementCache } from './statement-cache.js';

export {
  DatabaseOpenError,
  DEFAULT_DATABASE_POOL_SIZE,
  type ConnectionCounts,
  type DatabaseHandle,
  type DialectName,
  type ExclusiveLock,
  type ExclusiveOutcome,
} from './database-handle.js';

export interface OpenDatabaseOptions extends OpenSqliteOptions, OpenPostgresOptions {}

/** True for a `--db` value naming a PostgreSQL server rather than an SQLite file. */
export function isPostgresTarget(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target.trim());
}

/**
 * Opens `target`: a postgres:// (or postgresql://) URL selects PostgreSQL (its `pg` driver
 * loaded only then), anything else is an SQLite file path (`:memory:` for tests). The
 * options of the other dialect are ignored.
 */
export async function openDatabase(target: string, options: OpenDatabaseOptions = {}): Promise<DatabaseHandle> {
  if (!isPostgresTarget(target)) return openSqlite(target, options);
  const { openPostgres } = await import('./postgres-connection.js');
  return openPostgres(target.trim(), options);
}

/**
 * Opens (creating if needed) the SQLite file at `path` (`:memory:` for tests) with
 * WAL, foreign keys and a busy timeout. synchronous=NORMAL in WAL mode keeps every
 * committed transaction across a process crash (kill -9); only a power loss can
 * drop the last commits.
 */
export interface OpenSqliteOptions {
  /**
   * Checkpoint the WAL from a worker thread (background-checkpointer.ts) instead of inside
   * commits: for the serving process. Ignored for `:memory:` databases.
   */
  backgroundCheckpoints?: boolean;
  /** Where the background checkpointer reports failures. */
  onBackgroundError?: (message: string) => void;
  /** Bytes of the file read through a memory map (default DEFAULT_SQLITE_MMAP_BYTES; 0: none). */
  mmapBytes?: number;
  /**
   * Open an existing file read-only (`recsvc eval --database`: beside a running service, never
   * writing it): no WAL switch, no checkpoints, and any write fails. Ignored for `:memory:`.
   */
  readonly?: boolean;
}

/**
 * The database file is read through a memory map up to this size: the interaction write
 * path reads a handful of random index pages per request, and a map made that about 20%
 * cheaper than a read() call per page. Mapped pages the process touched count in its RSS
 * (though they are the kernel's page cache, shared and reclaimable), so the map is bounded:
 * with 1 GiB, a 650 MB database read by random users put all of it in the RSS, and with
 * 256 MB random users out of 100,000 filled it within a minute. Beyond the map, pages are
 * read into the kernel's page cache just the same, without counting in the process's RSS;
 * the 100k-user run served as many requests per second with 64 MB as with 256 MB.
 */
export const DEFAULT_SQLITE_MMAP_BYTES = 64 * 1024 * 1024;

/** WAL pages after which a commit checkpoints on its own thread (the backstop when a worker does it). */
const AUTOCHECKPOINT_PAGES = 4000;
const BACKSTOP_AUTOCHECKPOINT_PAGES = 16_000;

export function openSqlite(path: string, options: OpenSqliteOptions = {}): DatabaseHandle {
  const file = path !== ':memory:' && path !== '';
  const readonly = options.readonly === true && file;
  const background = options.backgroundCheckpoints === true && file && !readonly;
  let sqlite: SQLite.Database;
  try {
    sqlite = readonly ? new SQLite(path, { readonly: true, fileMustExist: true }) : new SQLite(path);
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma(`mmap_size = ${Math.max(0, Math.floor(options.mmapBytes ?? DEFAULT_SQLITE_MMAP_BYTES))}`);
    if (!readonly) configureWritable(sqlite, background);
    // Reads the schema: a file that is not a database fails here, not at the first query.
    sqlite.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (error) {
    throw new DatabaseOpenError(`cannot open database ${path}: ${(error as Error).message}`);
  }
  const statements = withStatementCache(sqlite);
  // Transactions take the write lock at BEGIN, so another process's writes are waited for (sqlite-immediate.ts).
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: statements }) });
  runTransactionsDirectly(db, statements);
  const ping = sqlite.prepare('SELECT 1');
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  const checkpointer = background
    ? startBackgroundCheckpointer(path, options.onBackgroundError ? { onError: options.onBackgroundError } : {})
    : undefined;
  return {
    db,
    dialect: 'sqlite',
    sharedTarget: file ? path : undefined,
    // Synchronous inside (better-sqlite3), so a failure throws at the call: a caller that
    // does not await (an older health check) still sees it.
    ping: () => {
      const started = process.hrtime.bigint();
      ping.get();
      return Promise.resolve(Number(process.hrtime.bigint() - started) / 1e6);
    },
    externalWrites: oncePerTurn(() => dataVersion.get() as number),
    // One process owns an SQLite file's agents: the lock only has to hold within it.
    withExclusiveLock: exclusiveLock(),
    // One process owns an SQLite file: no other writes its privacy rows.
    onPrivacyRowChange: () => undefined,
    // Nor its experiments: another process's change is read at the runtime's 30 s refresh.
    onExperimentsChange: () => undefined,
    // Nor its users' settings: this process's own writes drop what it cached.
    onUserSettingsChange: () => undefined,
    connections: () => ({ max: 1, open: sqlite.open ? 1 : 0, idle: sqlite.open ? 1 : 0, waiting: 0 }),
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
      // kysely closes the connection only if it ever ran a query through it.
      if (sqlite.open) sqlite.close();
    },
  };
}

/** The pragmas of a file the process writes (the serving process, the CLI's writing commands). */
function configureWritable(sqlite: SQLite.Database, background: boolean): void {
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  // Checkpoint every 4,000 WAL pages (16 MB) instead of 1,000: each checkpoint copies pages
  // and fsyncs inside some COMMIT, and under interaction load (about five random b-tree
  // pages per write) that was most of the commit cost. Fewer, larger checkpoints fsync
  // less and copy pages rewritten in between once. Commits stay as durable as before.
  // With a background checkpointer this is only its backstop (64 MB).
  sqlite.pragma(`wal_autocheckpoint = ${background ? BACKSTOP_AUTOCHECKPOINT_PAGES : AUTOCHECKPOINT_PAGES}`);
  sqlite.pragma('foreign_keys = ON');
  // Deleted rows are overwritten with zeros (b-tree cells and freed pages), so an erased user's
  // bytes do not linger in the file until SQLite happens to reuse the space (scrubDeletedData).
  sqlite.pragma('secure_delete = ON');
}

/**
 * `read` at most once per event-loop turn: the value read first in a turn is answered to every
 * call until the next. For SQLite's data_version (another process's commits), asked by every
 * authenticated request: the pragma starts a read of the WAL index each time (about 4% of an
 * interaction write's CPU), while requests parsed in one turn arrived together, so another
 * process's commit is as concurrent with all of them as with the first.
 */
export function oncePerTurn<T>(read: () => T): () => T {
  let value: T;
  let fresh = false;
  const expire = (): void => {
    fresh = false;
  };
  return () => {
    if (!fresh) {
      value = read();
      fresh = true;
      setImmediate(expire);
    }
    return value;
  };
}
