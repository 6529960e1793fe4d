/**
 * Recognising database errors by kind, whatever the dialect: the write paths let a
 * constraint answer a question (does the referenced row exist?) instead of asking first.
 */

/** better-sqlite3's extended result code, PostgreSQL's SQLSTATE. */
const FOREIGN_KEY_VIOLATION = new Set(['SQLITE_CONSTRAINT_FOREIGNKEY', '23503']);

/** True when `error` is a foreign-key violation (the referenced row does not exist). */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && FOREIGN_KEY_VIOLATION.has(code);
}

const UNIQUE_VIOLATION = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY', '23505']);

/**
 * True when `error` is a unique violation. On SQLite a write transaction runs alone, so a
 * read-then-insert inside it cannot race; on PostgreSQL two such transactions can both read
 * before either inserts, and the unique index then refuses the second: retrying it reads
 * the first one's row.
 */
export function isUniqueViolation(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && UNIQUE_VIOLATION.has(code);
}
