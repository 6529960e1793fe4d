/**
 * Where `recsvc eval` reads its data: import files (streamed through the import formats'
 * parsers), the service's database (an SQLite file opened read-only, or PostgreSQL; never
 * written), or the synthetic generator.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildDataset, type EvalDataset } from '../../src/evaluation/dataset.js';
import { generateSynthetic, syntheticOptions, type SyntheticKind } from '../../src/evaluation/generate.js';
import { createInteractionsParser, createPostsParser, toJsonLines } from '../../src/evaluation/import-format.js';
import { parseChunks } from '../../src/experiments/io/line-parser.js';
import { usageError } from './cli-error.js';
import { openLineSource } from './line-source.js';

export interface EvalDataFlags {
  posts?: string;
  interactions?: string;
  database?: string;
  synthetic?: SyntheticKind;
  dataSeed: number;
  writeData?: string;
  /** With `database`: the newest this many interactions only, as the ranking_fit agent reads them. */
  maxInteractions?: number;
}

/** The data set and a name for it (reports say where the numbers came from). */
export async function loadEvalData(flags: EvalDataFlags): Promise<{ dataset: EvalDataset; source: string }> {
  const given = [
    flags.posts !== undefined || flags.interactions !== undefined,
    flags.database !== undefined,
    flags.synthetic !== undefined,
  ];
  if (given.filter(Boolean).length !== 1) throw usageError('give one data source: --posts and --interactions, --database, or --synthetic');
  if (flags.writeData !== undefined && flags.synthetic === undefined) throw usageError('--write-data writes the data of --synthetic');
  if (flags.synthetic !== undefined) return synthetic(flags.synthetic, flags.dataSeed, flags.writeData);
  if (flags.maxInteractions !== undefined && flags.database === undefined)
    throw usageError('--max-interactions reads the newest interactions of --database');
  if (flags.database !== undefined) return fromDatabase(flags.database, flags.maxInteractions);
  if (flags.posts === undefined || flags.interactions === undefined) throw usageError('--posts and --interactions go together');
  const posts = await parseChunks((await openLineSource(flags.posts)).chunks, createPostsParser(flags.posts));
  const interactions = await parseChunks((await openLineSource(flags.interactions)).chunks, createInteractionsParser(flags.interactions));
  return { dataset: buildDataset(posts, interactions), source: `${flags.posts} + ${flags.interactions}` };
}

async function synthetic(regime: SyntheticKind, seed: number, dir: string | undefined): Promise<{ dataset: EvalDataset; source: string }> {
  const data = generateSynthetic(syntheticOptions(regime, { seed }));
  if (dir !== undefined) {
    try {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'posts.jsonl'), toJsonLines(data.statuses));
      await writeFile(join(dir, 'interactions.jsonl'), toJsonLines(data.interactions));
    } catch (error) {
      throw usageError(`--write-data ${dir}: cannot write (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  const posts = createPostsParser('synthetic');
  for (const line of toJsonLines(data.statuses).split('\n')) posts.line(line);
  const interactions = createInteractionsParser('synthetic');
  for (const line of toJsonLines(data.interactions).split('\n')) interactions.line(line);
  return { dataset: buildDataset(posts.finish(), interactions.finish()), source: `synthetic ${regime} (seed ${seed})` };
}

/**
 * The posts and interactions of the service's database (an SQLite file opened read-only, or a
 * PostgreSQL URL: only read), through the same read the `ranking_fit` agent makes: every
 * interaction and every post, or with `maxInteractions` the newest ones as the agent reads them.
 */
async function fromDatabase(target: string, maxInteractions: number | undefined): Promise<{ dataset: EvalDataset; source: string }> {
  const { openDatabase, isPostgresTarget } = await import('../../server/platform/db/connection.js');
  const { FIT_NEWEST_POSTS, loadFitData } = await import('../../server/ranking-state/ranking-fit.repository.js');
  // A URL is shown (in messages and reports) without its password.
  const shown = isPostgresTarget(target)
    ? (await import('../../server/platform/db/postgres-connection.js')).withoutPassword(target.trim())
    : target;
  const source = maxInteractions === undefined ? shown : `${shown} (the newest ${maxInteractions} interactions)`;
  let database;
  try {
    database = await openDatabase(target, { readonly: true, poolSize: 1 });
  } catch (error) {
    throw usageError(`--database ${shown}: cannot open it read-only (${(error as Error).message})`);
  }
  try {
    const dataset =
      maxInteractions === undefined
        ? await loadFitData(database.db, Infinity, Infinity)
        : await loadFitData(database.db, maxInteractions, FIT_NEWEST_POSTS);
    return { dataset, source };
  } catch (error) {
    throw usageError(`--database ${shown}: not a recsvc database (${(error as Error).message})`);
  } finally {
    await database.close();
  }
}
