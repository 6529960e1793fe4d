/**
 * One job in a child process (the ranking fit's evaluation, the item model's build): forked
 * from a built script with none of the serving process's flags (an --inspect port, --cpu-prof),
 * the job sent by structured clone ('advanced', as a worker's postMessage), the child's one
 * answer returned; an abort kills it, and so does the end of the job whatever happened, so the
 * memory the job used leaves with the process. The child runs at a lower CPU priority
 * (`BACKGROUND_NICE`): on a machine with fewer cores than busy processes the scheduler gives the
 * serving process the CPU first, and the job takes what is left (a job that waits longer is
 * still bounded by its caller's abort).
 */
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';

/** The nice value a job's child process runs at (a serving process's is 0; 19 is the least), or the serving process's own when it is higher. */
export const BACKGROUND_NICE = 10;

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
  const child = fork(fileURLToPath(script), [], { serialization: 'advanced', execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  lowerPriority(child.pid);
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

/** Lowers a child's CPU priority to BACKGROUND_NICE (never above this process's); where the system refuses, the job runs as before. */
function lowerPriority(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    setPriority(pid, Math.max(getPriority(), BACKGROUND_NICE));
  } catch {
    // A platform or sandbox that does not allow it: the job still runs, at the serving process's priority.
  }
}
