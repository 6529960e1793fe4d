/**
 * One build of the periodic item–item model and where it runs: in a child process
 * (item-model.child.js, next to this module in the built service), so the serving thread's
 * event loop is not held for the seconds the inverse takes and its memory (32·n² bytes) leaves
 * with the process, or on this thread when the script is not there (running from sources, tests).
 */
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fitItemModel, itemModelToJson, type ItemModelOptions, type ItemModelPair } from '../../src/ranking/item-model.js';

export interface ItemModelJob {
  readonly pairs: readonly ItemModelPair[];
  readonly options: Partial<ItemModelOptions>;
}

export interface ItemModelBuild {
  /** The model as stored (`itemModelToJson`). */
  readonly json: string;
  readonly posts: number;
  readonly entries: number;
  readonly pairs: number;
}

/** The build itself (what the child process runs). */
export function buildItemModel(job: ItemModelJob): ItemModelBuild {
  const fit = fitItemModel(job.pairs, job.options);
  return { json: itemModelToJson(fit.data), posts: fit.data.ids.length, entries: fit.data.weights.length, pairs: fit.pairs };
}

const DEFAULT_CHILD_SCRIPT = new URL('./item-model.child.js', import.meta.url);

/** Runs a build: in a child process when `script` exists (default: the built script next to this module; null: never), else here. An abort kills the child. */
export async function runItemModelBuild(
  job: ItemModelJob,
  signal: AbortSignal,
  script: URL | null = DEFAULT_CHILD_SCRIPT,
): Promise<{ build: ItemModelBuild; where: 'child' | 'thread' }> {
  if (script === null || !existsSync(fileURLToPath(script))) return { build: buildItemModel(job), where: 'thread' };
  const child = fork(fileURLToPath(script), [], { serialization: 'advanced', execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const stop = (): void => void child.kill('SIGKILL');
  signal.addEventListener('abort', stop, { once: true });
  try {
    const message = await new Promise<{ build?: ItemModelBuild; error?: string }>((resolve, reject) => {
      child.once('message', (answer) => resolve(answer as { build?: ItemModelBuild; error?: string }));
      child.once('error', reject);
      child.once('exit', (code, killed) =>
        reject(new Error(`the item model's child process exited (${killed ?? `code ${code}`}) without a result`)),
      );
      child.send(job);
    });
    if (message.build === undefined) throw new Error(`the item model build failed: ${message.error ?? 'no result'}`);
    return { build: message.build, where: 'child' };
  } finally {
    signal.removeEventListener('abort', stop);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
