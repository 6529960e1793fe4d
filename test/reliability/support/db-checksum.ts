/**
 * A checksum of every table's contents, read through a second (read-only)
 * connection while the server runs (WAL lets a reader in beside the writer), so a
 * test can prove that a rejected request changed nothing.
 */
import { createHash } from 'node:crypto';
import SQLite from 'better-sqlite3';

export interface DatabaseChecksum {
  /** Hash of all rows of all tables, independent of row order. */
  digest(): string;
  /** Per table: row count and hash, to name what changed. */
  tables(): Record<string, string>;
  close(): void;
}

/** Opens `dbPath` read-only for checksums. */
export function openChecksum(dbPath: string): DatabaseChecksum {
  const db = new SQLite(dbPath, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  const names = (): string[] =>
    (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as {
        name: string;
      }[]
    ).map((r) => r.name);
  const tables = (): Record<string, string> => {
    const out: Record<string, string> = {};
    // One read transaction, so every table is read at the same commit.
    db.transaction(() => {
      for (const name of names()) {
        const rows = db
          .prepare(`SELECT * FROM "${name.replace(/"/g, '""')}"`)
          .raw()
          .all() as unknown[][];
        const lines = rows.map((row) => JSON.stringify(row, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('base64') : v))).sort();
        out[name] = `${rows.length}:${createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16)}`;
      }
    })();
    return out;
  };
  return {
    tables,
    digest: () => createHash('sha256').update(JSON.stringify(tables())).digest('hex'),
    close: () => db.close(),
  };
}

/** The tables whose checksum differs between two readings. */
export function changedTables(before: Record<string, string>, after: Record<string, string>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => before[name] !== after[name]).sort();
}
