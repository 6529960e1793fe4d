/**
 * One build of the periodic item–item model and where it runs: in a child process
 * (item-model.child.js, next to this module in the built service), so the serving thread's
 * event loop is not held for the seconds the inverse takes and its memory (32·n² bytes) leaves
 * with the process, or on this thread when the script is not there (running from sources, tests).
 */
import { fitItemModel, itemModelToBytes, type ItemModelOptions, type ItemModelPair } from '../../src/ranking/item-model.js';
import { childScriptExists, readFromDatabase, runChildJob } from './child-job.js';
import { loadItemModelPairs } from './item-model.repository.js';

export interface ItemModelJob {
  /** The pairs, read by the serving process (its database is in memory: nothing else can open it)… */
  readonly pairs?: readonly ItemModelPair[];
  /**
   * …or where the build reads the newest `limit` itself, read-only (DatabaseHandle.sharedTarget):
   * the serving thread then neither reads 200,000 interactions nor serialises them.
   */
  readonly database?: { readonly target: string; readonly limit: number };
  readonly options: Partial<ItemModelOptions>;
}

export interface ItemModelBuild {
  /** The model as stored (`itemModelToBytes`; a child sends it by structured clone). */
  readonly bytes: Uint8Array;
  /** Posts EASE's lists hold. */
  readonly posts: number;
  /** Neighbour entries of both kinds (EASE's and the cosine lists'). */
  readonly entries: number;
  readonly pairs: number;
  /** Interactions read (what the model was fitted on). */
  readonly read: number;
}

/** The build itself (what the child process runs). */
export async function buildItemModel(job: ItemModelJob): Promise<ItemModelBuild> {
  const pairs = job.pairs ?? (await readPairs(job));
  const fit = fitItemModel(pairs, job.options);
  const entries = fit.data.weights.length + (fit.data.cosine?.weights.length ?? 0);
  return { bytes: itemModelToBytes(fit.data), posts: fit.data.ids.length, entries, pairs: fit.pairs, read: pairs.length };
}

async function readPairs(job: ItemModelJob): Promise<ItemModelPair[]> {
  if (job.database === undefined) throw new Error('an item model job names its pairs or its database');
  const { target, limit } = job.database;
  return readFromDatabase(target, (db) => loadItemModelPairs(db, limit));
}

const DEFAULT_CHILD_SCRIPT = new URL('./item-model.child.js', import.meta.url);

/** Runs a build: in a child process when `script` exists (default: the built script next to this module; null: never), else here. An abort kills the child. */
export async function runItemModelBuild(
  job: ItemModelJob,
  signal: AbortSignal,
  script: URL | null = DEFAULT_CHILD_SCRIPT,
): Promise<{ build: ItemModelBuild; where: 'child' | 'thread' }> {
  if (!childScriptExists(script)) return { build: await buildItemModel(job), where: 'thread' };
  const message = await runChildJob<{ build?: ItemModelBuild; error?: string }>(script, job, signal, 'the item model');
  if (message.build === undefined) throw new Error(`the item model build failed: ${message.error ?? 'no result'}`);
  return { build: message.build, where: 'child' };
}
