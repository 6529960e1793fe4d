/**
 * Opens a PostgreSQL database through kysely's PostgresDialect over a `pg` pool. `pg` (and
 * `pg-cursor`, which kysely's `.stream()` needs on PostgreSQL) are imported only here and
 * only when a postgres:// URL is given, so an SQLite-only install never loads them. Dialect
 * details stay in this folder: value parsing, the pool, the ping, streaming, the locks.
 */
import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Database } from './database.js';
import { DatabaseOpenError, DEFAULT_DATABASE_POOL_SIZE, type DatabaseHandle } from './database-handle.js';
import { postgresAdvisoryLocks } from './postgres-advisory-lock.js';
import { listenForTokenChanges } from './postgres-change-signal.js';

export interface OpenPostgresOptions {
  /** Most connections the pool holds (default DEFAULT_DATABASE_POOL_SIZE). */
  poolSize?: number;
  /** Milliseconds to wait for a connection before failing (default 10 s). */
  connectTimeoutMs?: number;
}

/** PostgreSQL's type ids whose values `pg` returns as strings by default. */
const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * Connects (one real round trip, so a wrong URL fails here rather than at the first
 * request) and returns the handle. Errors name the server, never the password.
 */
export async function openPostgres(url: string, options: OpenPostgresOptions = {}): Promise<DatabaseHandle> {
  const shown = withoutPassword(url);
  const pg = await loadPg();
  const Cursor = await loadCursor();
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? DEFAULT_DATABASE_POOL_SIZE,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    // bigint (epoch milliseconds, counts, ids) and numeric (SUM of bigint) as JavaScript
    // numbers, as SQLite returns them: every such value here is far below 2^53.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID || oid === NUMERIC_OID
          ? Number
          : (pg.types.getTypeParser(oid, format) as unknown)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client's error (the server restarted, a connection was killed) must not crash
  // the process: the pool drops that client and the next query opens a new one.
  pool.on('error', () => undefined);
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new DatabaseOpenError(`cannot open database ${shown}: ${(error as Error).message}`);
  }
  // The cursor streams a `.stream()` query in chunks (exports), instead of kysely refusing it.
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool, cursor: Cursor }) });
  const ownConnection = { connectionString: url, connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000 };
  // Connections outside the pool: notifications of token changes (see the signal) and,
  // opened when first needed, the advisory locks of cluster agents.
  const tokenChanges = listenForTokenChanges(pg, ownConnection);
  const locks = postgresAdvisoryLocks(pg, ownConnection);
  return {
    db,
    dialect: 'postgres',
    sharedTarget: url,
    ping: async () => {
      const started = process.hrtime.bigint();
      await sql`SELECT 1`.execute(db);
      return Number(process.hrtime.bigint() - started) / 1e6;
    },
    externalWrites: () => tokenChanges.version(),
    withExclusiveLock: locks.lock,
    onPrivacyRowChange: (listener) => tokenChanges.onPrivacyChange(listener),
    onExperimentsChange: (listener) => tokenChanges.onExperimentsChange(listener),
    onUserSettingsChange: (listener) => tokenChanges.onUserSettingsChange(listener),
    connections: () => ({ max: pool.options.max, open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: async () => {
      await tokenChanges.close();
      await locks.close();
      await db.destroy();
    },
  };
}

type Pg = typeof import('pg');

async function loadPg(): Promise<Pg> {
  try {
    const loaded = (await import('pg')) as Pg & { default?: Pg };
    return loaded.default ?? loaded;
  } catch {
    throw new DatabaseOpenError('PostgreSQL needs the pg package: npm install pg');
  }
}

type CursorClass = typeof import('pg-cursor');

async function loadCursor(): Promise<CursorClass> {
  try {
    const loaded = (await import('pg-cursor')) as CursorClass & { default?: CursorClass };
    return loaded.default ?? loaded;
  } catch {
    throw new DatabaseOpenError('PostgreSQL needs the pg-cursor package: npm install pg-cursor');
  }
}

/** The URL as safe to log: any password replaced. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}
