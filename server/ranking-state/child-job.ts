/**
 * One job in a child process (the ranking fit's evaluation, the item model's build): forked
 * from a built script with none of the serving process's flags (an --inspect port, --cpu-prof),
 * the job sent by structured clone ('advanced', as a worker's postMessage), the child's one
 * answer returned; an abort kills it, and so does the end of the job whatever happened, so the
 * memory the job used leaves with the process.
 */
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database.js';

/** Whether the built child script is there (running from sources, it is not: the job then runs on this thread). */
export function childScriptExists(script: URL | null): script is URL {
  return script !== null && existsSync(fileURLToPath(script));
}

/**
 * Sends `job` to a child process of `script` and resolves with its first message. `what` names
 * the job in the error when the child exits without answering ("the ranking fit's child
 * process exited (SIGKILL) without a result").
 */
export async function runChildJob<Answer>(script: URL, job: unknown, signal: AbortSignal, what: string): Promise<Answer> {
  // Aborted while the job was prepared (its data read): an abort listener would never fire.
  if (signal.aborted) throw new Error(`${what} was stopped before its child process started`);
  const child = fork(fileURLToPath(script), [], { serialization: 'advanced', execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const stop = (): void => void child.kill('SIGKILL');
  signal.addEventListener('abort', stop, { once: true });
  try {
    return await new Promise<Answer>((resolve, reject) => {
      child.once('message', (answer) => resolve(answer as Answer));
      child.once('error', reject);
      child.once('exit', (code, killed) =>
        reject(new Error(`${what}'s child process exited (${killed ?? `code ${code}`}) without a result`)),
      );
      child.send(job as object);
    });
  } finally {
    signal.removeEventListener('abort', stop);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/** Runs `read` on the database at `target` opened read-only (a job's child reading its own data), then closes it. */
export async function readFromDatabase<T>(target: string, read: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  const { openDatabase } = await import('../platform/db/connection.js');
  const database = await openDatabase(target, { readonly: true, poolSize: 1 });
  try {
    return await read(database.db);
  } finally {
    await database.close();
  }
}
