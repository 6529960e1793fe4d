/** What every dialect's connection gives the rest of the service (server/platform/db/connection.ts opens one). */
import type { Kysely } from 'kysely';
import type { Database } from './database.js';
import { InputError } from '../../../src/errors.js';

/** Connections one process's PostgreSQL pool keeps unless configured (RECSVC_DATABASE_POOL_SIZE). */
export const DEFAULT_DATABASE_POOL_SIZE = 10;

export type DialectName = 'sqlite' | 'postgres';

/** What `withExclusiveLock` did: ran the work (its value), or left it because the lock was taken. */
export type ExclusiveOutcome<T> = { acquired: true; value: T } | { acquired: false; reason: string };

/** A named lock across every process on one database (see DatabaseHandle.withExclusiveLock). */
export type ExclusiveLock = <T>(name: string, work: () => Promise<T>) => Promise<ExclusiveOutcome<T>>;

/** A pool's occupancy (for `service_database_connections{pool_name}`). */
export interface ConnectionCounts {
  /** Most connections the pool may open (1 for SQLite's single connection). */
  max: number;
  open: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
}

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  /**
   * What another process opens to read the same data (the background jobs' child processes:
   * ranking-state/child-job.ts): the SQLite file's path or the PostgreSQL URL; undefined for an
   * in-memory database, which nothing else can open.
   */
  readonly sharedTarget?: string | undefined;
  /**
   * One real round trip, resolving with its latency in milliseconds; rejects (SQLite: throws
   * synchronously) when the database does not answer. Used by health checks.
   */
  ping: () => Promise<number>;
  /**
   * A number that changes whenever ANOTHER connection (another process, such as
   * `recsvc token revoke`) has committed to the database since the last call; this
   * connection's own writes do not change it. Caches of rarely written tables use it to
   * notice outside writes. SQLite: PRAGMA data_version. PostgreSQL: notifications of changes
   * to `tokens` (the one table whose cache relies on it; postgres-change-signal.ts), and a
   * new number on every call while those cannot be trusted, so such caches re-read.
   */
  externalWrites: () => number;
  /**
   * Runs `work` holding the lock `name`, unless someone else holds it: then resolves
   * `{ acquired: false }` at once, without running it (never waits for the lock). The lock is
   * released when `work` settles. PostgreSQL: a session-level advisory lock
   * (pg_try_advisory_lock) on a connection of its own outside the pool, keyed by the schema
   * and the name, so every process on the database sees it (postgres-advisory-lock.ts).
   * SQLite: held within this process only — one process owns an SQLite file's agents.
   */
  withExclusiveLock: ExclusiveLock;
  /**
   * Calls `listener` with the user id of each change another process committed to the user's
   * privacy row (undefined: changes may have been missed, re-read them all). PostgreSQL:
   * migration 0026's notifications, so every instance learns a level change at once. SQLite:
   * never called — one process owns the file, and its policy sees its own writes.
   */
  onPrivacyRowChange: (listener: (userId: string | undefined) => void) => void;
  /**
   * Calls `listener` after another process committed a change to the experiments, their
   * variants or their active periods (and whenever changes may have been missed). PostgreSQL:
   * migration 0027's notifications, so a block made by `recsvc agents run experiment_gates` or
   * a lifecycle change on another instance applies at once. SQLite: never called (the runtime
   * re-reads the open experiments every 30 s).
   */
  onExperimentsChange: (listener: () => void) => void;
  /**
   * Calls `listener` with the user id of each change another process committed to the user's
   * `user_settings` row (undefined: changes may have been missed, forget them all). PostgreSQL:
   * migration 0030's notifications, so an experiments opt-out made through one instance applies
   * on every other at once. SQLite: never called — one process owns the file.
   */
  onUserSettingsChange: (listener: (userId: string | undefined) => void) => void;
  /** The connections open now. */
  connections: () => ConnectionCounts;
  close: () => Promise<void>;
}

export class DatabaseOpenError extends InputError {}
