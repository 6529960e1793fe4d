/**
 * Worker thread of a staged bulk load (see bulk-staging.ts): builds one table in the staging
 * file with its own connection, rows inserted in the given order, secondary indexes built
 * afterwards by one sort each, then posts `{}` (or `{ error }`) and closes the file. The file
 * is scratch space, deleted after the load: no journal, no fsync.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { isoStrings, type StagedColumn, type StagingJob } from './bulk-staging.js';

/** Bound values per statement (SQLite allows 32,766). */
const MAX_VALUES = 30_000;

/** Writes column `c` of rows `order[start .. start + rows)` into `values` (rows of `width`), one loop per column kind. */
function fillColumn(
  column: StagedColumn,
  c: number,
  width: number,
  order: Uint32Array,
  start: number,
  values: unknown[],
  iso: (ms: number) => string,
): void {
  const rows = values.length / width;
  switch (column.kind) {
    case 'null':
      for (let r = 0; r < rows; r++) values[r * width + c] = null;
      return;
    case 'strings':
      for (let r = 0; r < rows; r++) values[r * width + c] = column.dictionary[column.index[order[start + r] as number] as number];
      return;
    case 'packed':
      for (let r = 0; r < rows; r++) {
        const k = order[start + r] as number;
        values[r * width + c] = column.text.slice(k === 0 ? 0 : column.ends[k - 1], column.ends[k]);
      }
      return;
    case 'numbers':
      for (let r = 0; r < rows; r++) values[r * width + c] = column.values[order[start + r] as number];
      return;
    case 'isoTimes':
      for (let r = 0; r < rows; r++) values[r * width + c] = iso(column.ms[order[start + r] as number] as number);
      return;
  }
}

function build(job: StagingJob): void {
  const db = new SQLite(job.path);
  try {
    db.pragma(`page_size = ${job.pageSize}`);
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('foreign_keys = OFF');
    db.pragma('cache_size = -1048576');
    const { plan } = job;
    db.exec(plan.plainTable ?? plan.tableSql);
    const width = job.columns.length;
    const perStatement = Math.max(1, Math.floor(MAX_VALUES / width));
    const head = `INSERT INTO "${job.table}" (${job.columns.map((c) => `"${c}"`).join(',')}) VALUES `;
    const tuple = `(${job.columns.map(() => '?').join(',')})`;
    const full = db.prepare(head + Array<string>(perStatement).fill(tuple).join(','));
    const iso = isoStrings();
    const count = job.order.length;
    db.exec('BEGIN');
    for (let start = 0; start < count; start += perStatement) {
      const rows = Math.min(perStatement, count - start);
      const values = new Array<unknown>(rows * width);
      job.values.forEach((column, c) => fillColumn(column, c, width, job.order, start, values, iso));
      (rows === perStatement ? full : db.prepare(head + Array<string>(rows).fill(tuple).join(','))).run(values);
    }
    for (const index of plan.constraintIndexes) db.exec(index.create);
    for (const index of plan.indexes) db.exec(index);
    db.exec('COMMIT');
    if (plan.plainTable !== undefined) declareAsLoaded(db, job);
  } finally {
    db.close();
  }
}

/**
 * The staged table's schema rewritten to the loading database's definition, its constraint
 * indexes renamed to SQLite's names for them (see StagingPlan): a scratch file, read by the
 * one statement that copies it, then deleted.
 */
function declareAsLoaded(db: SQLite.Database, job: StagingJob): void {
  // Schema edits are refused in defensive mode (better-sqlite3's default).
  db.unsafeMode(true);
  const version = db.pragma('schema_version', { simple: true }) as number;
  db.pragma('writable_schema = ON');
  db.transaction(() => {
    db.prepare(`UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?`).run(job.plan.tableSql, job.table);
    for (const index of job.plan.constraintIndexes) {
      db.prepare(`UPDATE sqlite_master SET name = ?, sql = NULL WHERE type = 'index' AND name = ?`).run(index.name, index.temporaryName);
    }
  })();
  db.pragma(`schema_version = ${version + 1}`);
  db.pragma('writable_schema = OFF');
  db.unsafeMode(false);
}

try {
  build(workerData as StagingJob);
  parentPort?.postMessage({});
} catch (error) {
  parentPort?.postMessage({ error: error instanceof Error ? error.message : String(error) });
}
