/**
 * How the policy reads a user's stored level synchronously (write paths ask it inline, and a
 * miss of its bounded cache must still answer at once):
 * - a database file: a read-only connection of its own on the same file (WAL lets it read
 *   the last commit while the main connection writes), one indexed lookup per miss;
 * - an in-memory database (tests, tools) or a database server: a mirror of the table loaded
 *   at start and kept by the policy's own writes. Nothing else writes an in-memory database;
 *   with a server, a level changed through another instance reaches this one by the
 *   database's notification (DatabaseHandle.onPrivacyRowChange; PrivacyPolicyService.outsideChange).
 */
import SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database.js';
import { listTrackingLevels } from './privacy.repository.js';

export interface LevelReader {
  /** The stored level text, undefined when the user has none. */
  read(userId: string): string | undefined;
  /** Called after the policy wrote (a level, or undefined once erased), or learnt another instance did. */
  written(userId: string, level: string | undefined): void;
  /** Every stored level, read again after changes may have been missed (another instance's, while not listening). */
  replaceAll(rows: ReadonlyArray<{ user_id: string; tracking_level: string }>): void;
  close(): void;
}

/** A read-only connection on the database file. */
export function fileLevelReader(dbPath: string): LevelReader {
  const sqlite = new SQLite(dbPath, { readonly: true, fileMustExist: true });
  sqlite.pragma('busy_timeout = 5000');
  const select = sqlite.prepare<[string], { tracking_level: string }>('SELECT tracking_level FROM privacy_settings WHERE user_id = ?');
  return {
    read: (userId) => select.get(userId)?.tracking_level,
    written: () => undefined,
    replaceAll: () => undefined,
    close: () => sqlite.close(),
  };
}

/** The whole table in memory, for a database only this process can write. */
export async function mirrorLevelReader(db: Kysely<Database>): Promise<LevelReader> {
  const levels = new Map<string, string>();
  for (const row of await listTrackingLevels(db)) levels.set(row.user_id, row.tracking_level);
  return {
    read: (userId) => levels.get(userId),
    written: (userId, level) => {
      if (level === undefined) levels.delete(userId);
      else levels.set(userId, level);
    },
    replaceAll: (rows) => {
      levels.clear();
      for (const row of rows) levels.set(row.user_id, row.tracking_level);
    },
    close: () => levels.clear(),
  };
}
