/**
 * Start-up steps that write (migrations, the pseudonym key's row, the demo seed) beside
 * another process doing the same to the same SQLite file: processes started together (a
 * `--demo` fleet, a restart during `recsvc import`) find the write lock held longer than the
 * busy timeout (5 s, connection.ts) — a seed on a loaded machine holds it 10 s and more — and
 * failed their start with "database is locked". Here they wait for the other writer instead,
 * each attempt itself waiting the busy timeout, up to a deadline. PostgreSQL waits on its own
 * locks and never raises this.
 */

/** How long a starting process waits for another writer of its SQLite file before giving up. */
export const START_WAIT_FOR_WRITER_MS = 5 * 60_000;

/** True for SQLite's "database is locked" (the busy timeout ran out). */
export function isDatabaseBusy(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'SQLITE_BUSY';
}

/**
 * Runs `work` (idempotent: it may be run again after a busy failure) until it finishes, while
 * its only failure is the write lock held elsewhere and `deadlineMs` has not passed; `waiting`
 * is told once, so the log says why the start takes long.
 */
export async function whileAnotherProcessWrites<T>(
  work: () => Promise<T>,
  waiting: () => void = () => undefined,
  deadlineMs = START_WAIT_FOR_WRITER_MS,
): Promise<T> {
  const started = Date.now();
  let told = false;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!isDatabaseBusy(error) || Date.now() - started > deadlineMs) throw error;
      if (!told) waiting();
      told = true;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
