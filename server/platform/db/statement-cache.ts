/**
 * Kysely's SQLite driver prepares every statement on every call; preparing costs
 * more than running the small statements of the hot paths. This wraps the
 * better-sqlite3 handle given to the dialect so the same SQL text reuses its
 * prepared statement (bounded, least recently used first out). Repositories are
 * unaware of it.
 */
import type SQLite from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** The better-sqlite3 database seen through a bounded prepared-statement cache. */
export function withStatementCache(sqlite: SQLite.Database, capacity = 500): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      const cached = cache.get(sql);
      // A statement still iterating (a streamed query) cannot run again: prepare a fresh one.
      if (cached && !cached.busy) {
        cache.delete(sql);
        cache.set(sql, cached);
        return cached;
      }
      const statement = sqlite.prepare(sql);
      if (!cached) {
        cache.set(sql, statement);
        if (cache.size > capacity) cache.delete(cache.keys().next().value as string);
      }
      return statement;
    },
  };
}
