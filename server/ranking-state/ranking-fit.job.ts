/**
 * One ranking fit as data (what the agent hands its child process) and where it runs: in a
 * child process (ranking-fit.child.js, next to this module in the built service) so the serving
 * thread's event loop is not held and the evaluation's memory leaves with the process, or on
 * this thread when the script is not there (running from sources, tests), yielding to requests
 * every few users.
 */
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildDataset, type EvalDataset, type EvalInteraction, type EvalPost } from '../../src/evaluation/dataset.js';
import { fitRankingDefault, type FitOptions, type FitResult } from '../../src/evaluation/fit.js';
import type { RankingDefault } from '../../src/ranking/ranking-default.js';

export interface FitJob {
  readonly posts: readonly EvalPost[];
  readonly interactions: readonly EvalInteraction[];
  readonly current: RankingDefault;
  readonly options: Partial<FitOptions>;
}

/** The job's data set (the posts and interactions as a dataset again: it was cleaned already). */
export function fitJobDataset(job: FitJob): EvalDataset {
  return buildDataset(job.posts, job.interactions);
}

const DEFAULT_CHILD_SCRIPT = new URL('./ranking-fit.child.js', import.meta.url);

/**
 * Runs a fit: in a child process when `script` exists (default: the built script next to this
 * module; null: never), else on this thread. An abort kills the child.
 */
export async function runFit(
  data: EvalDataset,
  current: RankingDefault,
  options: Partial<FitOptions>,
  signal: AbortSignal,
  script: URL | null = DEFAULT_CHILD_SCRIPT,
): Promise<{ result: FitResult; where: 'child' | 'thread' }> {
  if (script === null || !existsSync(fileURLToPath(script))) {
    const result = await fitRankingDefault(data, current, options, {
      signal,
      pause: () => new Promise<void>((resolve) => setImmediate(resolve)),
    });
    return { result, where: 'thread' };
  }
  const job: FitJob = { posts: [...data.posts.values()], interactions: data.interactions, current, options };
  // Structured clone over IPC ('advanced'), as a worker's postMessage; none of the serving
  // process's flags (an --inspect port, --cpu-prof) are passed on.
  const child = fork(fileURLToPath(script), [], { serialization: 'advanced', execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const stop = (): void => void child.kill('SIGKILL');
  signal.addEventListener('abort', stop, { once: true });
  try {
    const message = await new Promise<{ result?: FitResult; error?: string }>((resolve, reject) => {
      child.once('message', (answer) => resolve(answer as { result?: FitResult; error?: string }));
      child.once('error', reject);
      child.once('exit', (code, killed) =>
        reject(new Error(`the ranking fit's child process exited (${killed ?? `code ${code}`}) without a result`)),
      );
      child.send(job);
    });
    if (message.result === undefined) throw new Error(`the ranking fit failed: ${message.error ?? 'no result'}`);
    return { result: message.result, where: 'child' };
  } finally {
    signal.removeEventListener('abort', stop);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
