/**
 * One ranking fit as data (what the agent hands its child process) and where it runs: in a
 * child process (ranking-fit.child.js, next to this module in the built service) so the serving
 * thread's event loop is not held and the evaluation's memory leaves with the process, or on
 * this thread when the script is not there (running from sources, tests), yielding to requests
 * every few users. Over a database another process can open (a file, a server) the child reads
 * the fit's data itself: the serving thread neither reads the 100,000 interactions nor
 * serialises them (about 0.8 s of its CPU and a 0.1-s hold of its event loop on the bench's data).
 */
import type { Kysely } from 'kysely';
import { buildDataset, type EvalDataset, type EvalInteraction, type EvalPost } from '../../src/evaluation/dataset.js';
import { fitRankingDefault, type FitOptions, type FitResult } from '../../src/evaluation/fit.js';
import type { RankingDefault } from '../../src/ranking/ranking-default.js';
import type { Database } from '../platform/db/database.js';
import { childScriptExists, readFromDatabase, runChildJob } from './child-job.js';
import { loadFitData } from './ranking-fit.repository.js';

/** What a fit reads (`loadFitData`), and where another process can read it too. */
export interface FitRead {
  readonly db: Kysely<Database>;
  /** The database's path or URL (DatabaseHandle.sharedTarget); undefined: only this process can read it. */
  readonly sharedTarget?: string | undefined;
  readonly maxInteractions: number;
  readonly newestPosts: number;
}

export interface FitJob {
  /** The data, read by the serving process (its database is in memory). */
  readonly data?: {
    readonly posts: readonly EvalPost[];
    readonly interactions: readonly EvalInteraction[];
    readonly returning: readonly string[];
  };
  /** Or where the child reads it itself. */
  readonly database?: { readonly target: string; readonly maxInteractions: number; readonly newestPosts: number };
  readonly current: RankingDefault;
  readonly options: Partial<FitOptions>;
}

/** The job's data set: read from the database (read-only) or given (cleaned already: a dataset again). */
export async function fitJobDataset(job: FitJob): Promise<EvalDataset> {
  if (job.data !== undefined) return buildDataset(job.data.posts, job.data.interactions, job.data.returning);
  if (job.database === undefined) throw new Error('a fit job names its data or its database');
  const { target, maxInteractions, newestPosts } = job.database;
  return readFromDatabase(target, (db) => loadFitData(db, maxInteractions, newestPosts));
}

const DEFAULT_CHILD_SCRIPT = new URL('./ranking-fit.child.js', import.meta.url);

/**
 * Runs a fit: in a child process when `script` exists (default: the built script next to this
 * module; null: never), which reads the data itself when it can (`read.sharedTarget`), else
 * on this thread. An abort kills the child.
 */
export async function runFit(
  read: FitRead,
  current: RankingDefault,
  options: Partial<FitOptions>,
  signal: AbortSignal,
  script: URL | null = DEFAULT_CHILD_SCRIPT,
): Promise<{ result: FitResult; where: 'child' | 'thread' }> {
  if (!childScriptExists(script)) {
    // The fit gives the event loop a turn every few users and between its folds.
    const data = await loadFitData(read.db, read.maxInteractions, read.newestPosts);
    const result = await fitRankingDefault(data, current, options, { signal });
    return { result, where: 'thread' };
  }
  let job: FitJob;
  if (read.sharedTarget !== undefined) {
    job = {
      database: { target: read.sharedTarget, maxInteractions: read.maxInteractions, newestPosts: read.newestPosts },
      current,
      options,
    };
  } else {
    const data = await loadFitData(read.db, read.maxInteractions, read.newestPosts);
    job = { data: { posts: [...data.posts.values()], interactions: data.interactions, returning: [...data.returning] }, current, options };
  }
  const message = await runChildJob<{ result?: FitResult; error?: string }>(script, job, signal, 'the ranking fit');
  if (message.result === undefined) throw new Error(`the ranking fit failed: ${message.error ?? 'no result'}`);
  return { result: message.result, where: 'child' };
}
