/**
 * Where `recsvc eval` reads its data: import files (streamed through the import formats'
 * parsers), the service's SQLite database (opened read-only, never written), or the
 * synthetic generator.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildDataset, type EvalDataset, type EvalInteraction, type EvalPost } from '../../src/evaluation/dataset.js';
import { generateSynthetic, syntheticOptions, type SyntheticKind } from '../../src/evaluation/generate.js';
import { createInteractionsParser, createPostsParser, toJsonLines } from '../../src/evaluation/import-format.js';
import { parseChunks } from '../../src/experiments/io/line-parser.js';
import { ACTION_TYPES, type InteractionAction } from '../../src/schemas/interaction.schema.js';
import { usageError } from './cli-error.js';
import { openLineSource } from './line-source.js';

export interface EvalDataFlags {
  posts?: string;
  interactions?: string;
  database?: string;
  synthetic?: SyntheticKind;
  dataSeed: number;
  writeData?: string;
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
  if (flags.database !== undefined) return { dataset: await fromDatabase(flags.database), source: flags.database };
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

interface PostRow {
  id: string;
  account_id: string;
  username: string | null;
  plain_text: string;
  tag_names: string;
  language: string | null;
  created_at_ms: number;
  reblog_of_id: string | null;
  sensitive: number;
  visibility: string;
}

interface InteractionRow {
  user_id: string;
  post_id: string;
  action_type: string;
  created_at_ms: number;
}

/** The posts and interactions of the service's SQLite database, read-only. */
async function fromDatabase(path: string): Promise<EvalDataset> {
  const { default: Database } = await import('better-sqlite3');
  let db;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw usageError(`--database ${path}: cannot open it read-only (${(error as Error).message})`);
  }
  try {
    const posts: EvalPost[] = [];
    const rows = db.prepare(
      `SELECT p.id, p.account_id, a.username, p.plain_text, p.tag_names, p.language, p.created_at_ms, p.reblog_of_id, p.sensitive, p.visibility
       FROM posts p LEFT JOIN accounts a ON a.id = p.account_id`,
    );
    for (const row of rows.iterate() as Iterable<PostRow>) {
      posts.push({
        id: row.id,
        accountId: row.account_id,
        accountUsername: row.username ?? '',
        text: row.plain_text,
        tags: row.tag_names === '' ? [] : row.tag_names.split(' '),
        language: row.language,
        createdAtMs: row.created_at_ms,
        favourites: 0,
        reblogs: 0,
        replies: 0,
        reblogOfId: row.reblog_of_id,
        sensitive: row.sensitive === 1,
        visibility: row.visibility,
      });
    }
    const interactions: EvalInteraction[] = [];
    for (const row of db
      .prepare('SELECT user_id, post_id, action_type, created_at_ms FROM interactions')
      .iterate() as Iterable<InteractionRow>) {
      if (!(ACTION_TYPES as readonly string[]).includes(row.action_type)) continue;
      interactions.push({
        userId: row.user_id,
        postId: row.post_id,
        action: row.action_type as InteractionAction,
        atMs: row.created_at_ms,
      });
    }
    return buildDataset(posts, interactions);
  } catch (error) {
    throw usageError(`--database ${path}: not a recsvc database (${(error as Error).message})`);
  } finally {
    db.close();
  }
}
