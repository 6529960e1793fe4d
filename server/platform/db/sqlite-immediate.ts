/**
 * SQLite transactions that take the database's write lock at BEGIN (`BEGIN IMMEDIATE`).
 *
 * kysely's SQLite driver begins with a plain `BEGIN` (deferred): the transaction's first read
 * takes a snapshot, and its first write must then upgrade to the write lock. While another
 * process (a second recsvc, `recsvc import`, a `token create`) holds that lock, or has
 * committed since the snapshot, the upgrade fails at once with SQLITE_BUSY ("database is
 * locked"): SQLite does not call the busy handler for it, since waiting could deadlock two
 * readers that both want to write, and a snapshot older than the last commit can never
 * write. The service's write transactions read first (the event judge reads the impressions
 * a click claims), so they answered 500 whenever another process wrote the same file.
 *
 * `BEGIN IMMEDIATE` asks for the write lock before any read, where the busy timeout applies
 * (5 s, connection.ts): the transaction waits for the other writer's commit and then reads
 * what it committed. On one connection per process this costs nothing in-process (kysely
 * runs one transaction at a time on it anyway); across processes, a transaction that only
 * reads holds the write lock while it runs, which readers in WAL mode do not notice.
 */
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

const BEGIN_IMMEDIATE = CompiledQuery.raw('BEGIN IMMEDIATE');

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(BEGIN_IMMEDIATE);
  }
}

/** kysely's SQLite dialect, its transactions begun with `BEGIN IMMEDIATE`. */
export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}
