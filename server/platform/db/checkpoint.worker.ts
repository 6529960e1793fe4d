/**
 * Worker thread of the background checkpointer (see background-checkpointer.ts): its own
 * connection to the database file copies committed WAL pages into the database every
 * `intervalMs`, off the event loop of the serving thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';

const { path, intervalMs } = workerData as { path: string; intervalMs: number };
let db: SQLite.Database;
try {
  db = new SQLite(path, { fileMustExist: true });
} catch (error) {
  // An error thrown here would reach the parent without its message: say it, then stop.
  parentPort?.postMessage({ fatal: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}

const timer = setInterval(() => {
  try {
    // PASSIVE never waits and never blocks readers or the writer; what it cannot copy now
    // (pages of a transaction being written) it copies on a later tick.
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort?.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
}, intervalMs);

parentPort?.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort?.close();
});
