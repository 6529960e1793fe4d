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

function valueOf(column: StagedColumn, iso: (ms: number) => string): (k: number) => unknown {
  switch (column.kind) {
    case 'null':
      return () => null;
    case 'strings':
      return (k) => column.dictionary[column.index[k] as number];
    case 'packed':
      return (k) => column.text.slice(k === 0 ? 0 : column.ends[k - 1], column.ends[k]);
    case 'numbers':
      return (k) => column.values[k];
    case 'isoTimes':
      return (k) => iso(column.ms[k] as number);
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
    const getters = job.values.map((column) => valueOf(column, isoStrings()));
    const count = job.order.length;
    db.exec('BEGIN');
    for (let start = 0; start < count; start += perStatement) {
      const rows = Math.min(perStatement, count - start);
      const values = new Array<unknown>(rows * width);
      for (let r = 0; r < rows; r++) {
        const k = job.order[start + r] as number;
        for (let c = 0; c < width; c++) values[r * width + c] = (getters[c] as (k: number) => unknown)(k);
      }
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
