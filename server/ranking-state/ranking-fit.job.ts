/**
 * One ranking fit as data (what the agent hands its child process) and where it runs: in a
 * child process (ranking-fit.child.js, next to this module in the built service) so the serving
 * thread's event loop is not held and the evaluation's memory leaves with the process, or on
 * this thread when the script is not there (running from sources, tests), yielding to requests
 * every few users.
 */
import { buildDataset, type EvalDataset, type EvalInteraction, type EvalPost } from '../../src/evaluation/dataset.js';
import { fitRankingDefault, type FitOptions, type FitResult } from '../../src/evaluation/fit.js';
import type { RankingDefault } from '../../src/ranking/ranking-default.js';
import { childScriptExists, runChildJob } from './child-job.js';

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
  if (!childScriptExists(script)) {
    // The fit gives the event loop a turn every few users and between its folds.
    const result = await fitRankingDefault(data, current, options, { signal });
    return { result, where: 'thread' };
  }
  const job: FitJob = { posts: [...data.posts.values()], interactions: data.interactions, current, options };
  const message = await runChildJob<{ result?: FitResult; error?: string }>(script, job, signal, 'the ranking fit');
  if (message.result === undefined) throw new Error(`the ranking fit failed: ${message.error ?? 'no result'}`);
  return { result: message.result, where: 'child' };
}
