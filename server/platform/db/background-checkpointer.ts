/**
 * SQLite copies the WAL back into the database ("checkpoint") inside whichever COMMIT
 * crosses `wal_autocheckpoint`, on the serving thread, with the fsyncs that make it
 * durable: under interaction load that was about half of every commit's cost. This
 * checkpointer does the copying in a worker thread with its own connection, every
 * 100 ms. The serving connection keeps a high automatic threshold as a backstop: when
 * it is reached, it only has the last pages left to copy, and the WAL restarts from
 * its beginning (a checkpoint on the writing thread is the moment nothing new is being
 * appended, which the worker never sees under sustained writes). If the worker fails,
 * the backstop alone keeps the WAL bounded. SQLite only (dialect detail of server/platform/db).
 */
import { Worker } from 'node:worker_threads';

export interface BackgroundCheckpointer {
  /** Stops the worker and closes its connection (before the serving connection closes). */
  stop(): Promise<void>;
}

export interface BackgroundCheckpointerOptions {
  intervalMs?: number;
  /** Errors of the worker (it keeps running; a crashed worker leaves the backstop). */
  onError?: (message: string) => void;
  /** The compiled worker script (tests running from sources pass the built one). */
  workerScript?: URL;
}

/** Starts checkpointing the WAL of the database file at `path` in a worker thread. */
export function startBackgroundCheckpointer(path: string, options: BackgroundCheckpointerOptions = {}): BackgroundCheckpointer {
  const worker = new Worker(options.workerScript ?? new URL('./checkpoint.worker.js', import.meta.url), {
    workerData: { path, intervalMs: options.intervalMs ?? 100 },
  });
  worker.unref();
  let exited = false;
  const exit = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  void exit.then(() => (exited = true));
  worker.on('message', (message: { error?: string; fatal?: string }) => {
    if (message.error !== undefined) options.onError?.(`background checkpoint failed: ${message.error}`);
    if (message.fatal !== undefined) options.onError?.(`background checkpointer stopped: ${message.fatal}`);
  });
  worker.on('error', (error) => options.onError?.(`background checkpointer stopped: ${error.message}`));
  return {
    stop: async () => {
      if (exited) return;
      worker.ref(); // keep the process alive until the worker has closed its connection
      worker.postMessage('stop');
      await exit;
    },
  };
}
