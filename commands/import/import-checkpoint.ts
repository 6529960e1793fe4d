/**
 * An import's checkpoint: the last line of the file stored by the server, written after each
 * batch's commit (to a temporary file renamed over the old one, so an interrupted write leaves
 * the previous checkpoint whole). Running the import again goes on after that line.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import type { ImportKind } from '../../src/import/import-rows.js';
import { usageError } from '../support/cli-error.js';

export interface Checkpoint {
  kind: ImportKind;
  /** The last line stored: every record ending on it or before is in the server. */
  line: number;
}

/** The checkpoint at `path`, if there is one; one for another kind of import is refused. */
export async function readCheckpoint(path: string, kind: ImportKind): Promise<Checkpoint | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw usageError(`--checkpoint ${path}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const checkpoint = parsed as Partial<Checkpoint> | undefined;
  if (typeof checkpoint?.line !== 'number' || !Number.isInteger(checkpoint.line) || checkpoint.line < 0) {
    throw usageError(`--checkpoint ${path}: not a checkpoint of recsvc import (remove it, or pass --restart)`);
  }
  if (checkpoint.kind !== kind) {
    throw usageError(`--checkpoint ${path}: it is the checkpoint of an import of ${String(checkpoint.kind)}, not ${kind}`);
  }
  return { kind, line: checkpoint.line };
}

/** Records that every line up to `line` is stored. */
export async function writeCheckpoint(path: string, checkpoint: Checkpoint): Promise<void> {
  const partial = `${path}.partial`;
  try {
    await writeFile(partial, `${JSON.stringify({ ...checkpoint, updated_at: new Date().toISOString() })}\n`);
    await rename(partial, path);
  } catch (error) {
    throw usageError(`--checkpoint ${path}: cannot write the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}
