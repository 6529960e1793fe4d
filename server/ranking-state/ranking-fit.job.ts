/**
 * One ranking fit as data (what the agent hands its worker thread) and where it runs: in a
 * worker (ranking-fit.worker.js, next to this module in the built service) so the serving
 * thread's event loop is not held, or on this thread when the worker is not there (running
 * from sources, tests), yielding to requests every few users.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
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

const DEFAULT_WORKER_SCRIPT = new URL('./ranking-fit.worker.js', import.meta.url);

/**
 * Runs a fit: in a worker thread when `script` exists (default: the built worker next to this
 * module; null: never), else on this thread. An abort terminates the worker.
 */
export async function runFit(
  data: EvalDataset,
  current: RankingDefault,
  options: Partial<FitOptions>,
  signal: AbortSignal,
  script: URL | null = DEFAULT_WORKER_SCRIPT,
): Promise<{ result: FitResult; where: 'worker' | 'thread' }> {
  if (script === null || !existsSync(fileURLToPath(script))) {
    const result = await fitRankingDefault(data, current, options, {
      signal,
      pause: () => new Promise<void>((resolve) => setImmediate(resolve)),
    });
    return { result, where: 'thread' };
  }
  const job: FitJob = { posts: [...data.posts.values()], interactions: data.interactions, current, options };
  const worker = new Worker(script, { workerData: job });
  const stop = (): void => void worker.terminate();
  signal.addEventListener('abort', stop, { once: true });
  try {
    const message = await new Promise<{ result?: FitResult; error?: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the ranking fit's worker exited (code ${code}) without a result`)));
    });
    if (message.result === undefined) throw new Error(`the ranking fit failed: ${message.error ?? 'no result'}`);
    return { result: message.result, where: 'worker' };
  } finally {
    signal.removeEventListener('abort', stop);
    await worker.terminate();
  }
}
