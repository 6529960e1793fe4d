/**
 * SQL of the default ranking's fits (`ranking_fits`, migration 0050) and the bounded read of
 * the service's own newest interactions and their posts that a fit evaluates on.
 */
import type { Kysely } from 'kysely';
import { buildDataset, type EvalDataset, type EvalInteraction, type EvalPost } from '../../src/evaluation/dataset.js';
import { isRankingDefault, type RankingDefault } from '../../src/ranking/ranking-default.js';
import { ACTION_TYPES, type InteractionAction } from '../../src/schemas/interaction.schema.js';
import type { Database } from '../platform/db/database.js';
import { readNewestInChunks } from './chunked-read.js';

export interface StoredFit {
  id: string;
  createdAtMs: number;
  status: string;
  choice: RankingDefault;
  previous: RankingDefault;
  interactions: number;
  summary: string;
}

/** Every fit, newest first (at most `limit`). */
export async function listFits(db: Kysely<Database>, limit = 50): Promise<StoredFit[]> {
  const rows = await db
    .selectFrom('ranking_fits')
    .selectAll()
    .orderBy('created_at_ms', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.flatMap((row) => {
    const choice = parse(row.choice);
    const previous = parse(row.previous);
    if (!isRankingDefault(choice) || !isRankingDefault(previous)) return [];
    return [
      {
        id: row.id,
        createdAtMs: Number(row.created_at_ms),
        status: row.status,
        choice,
        previous,
        interactions: Number(row.interactions),
        summary: row.summary,
      },
    ];
  });
}

/** The newest fit of any status (the next one waits for more data than it saw), and the newest applied one (the point in effect). */
export async function latestFits(db: Kysely<Database>): Promise<{ latest: StoredFit | undefined; applied: StoredFit | undefined }> {
  const latest = (await listFits(db, 1))[0];
  const rows = await db
    .selectFrom('ranking_fits')
    .selectAll()
    .where('status', '=', 'applied')
    .orderBy('created_at_ms', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .execute();
  const row = rows[0];
  const choice = row === undefined ? undefined : parse(row.choice);
  const previous = row === undefined ? undefined : parse(row.previous);
  const applied =
    row !== undefined && isRankingDefault(choice) && isRankingDefault(previous)
      ? {
          id: row.id,
          createdAtMs: Number(row.created_at_ms),
          status: row.status,
          choice,
          previous,
          interactions: Number(row.interactions),
          summary: row.summary,
        }
      : undefined;
  return { latest, applied };
}

export async function insertFit(db: Kysely<Database>, fit: Omit<StoredFit, 'id'> & { evidence: unknown }): Promise<string> {
  const id = `${fit.createdAtMs.toString().padStart(15, '0')}-${Math.random().toString(36).slice(2, 10)}`;
  await db
    .insertInto('ranking_fits')
    .values({
      id,
      created_at_ms: fit.createdAtMs,
      status: fit.status,
      choice: JSON.stringify(fit.choice),
      previous: JSON.stringify(fit.previous),
      interactions: fit.interactions,
      summary: fit.summary,
      evidence: JSON.stringify(fit.evidence),
    })
    .execute();
  return id;
}

/** How many interactions the service holds. */
export async function countInteractions(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('interactions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Ids per IN list (well under SQLite's and PostgreSQL's parameter limits). */
const CHUNK = 500;

/** The newest interactions a fit reads (`ranking_fit`'s default; `recsvc eval --max-interactions` reads as many). */
export const FIT_MAX_INTERACTIONS = 100_000;
/** Besides the posts those interactions are about, the newest posts a fit reads: what the pool holds as new. */
export const FIT_NEWEST_POSTS = 2_000;

/**
 * The newest `maxInteractions` positive interactions (newest by id: ids are in time order,
 * the primary key's index reads the tail), the posts they are about, and the newest
 * `newestPosts` posts (what the pool holds as new), as an evaluation data set. Infinity reads
 * all of them (`recsvc eval --database`: every interaction, every post).
 */
export async function loadFitData(db: Kysely<Database>, maxInteractions: number, newestPosts: number): Promise<EvalDataset> {
  const rows = await readNewestInChunks(
    maxInteractions,
    (before, n) => {
      const newest = db
        .selectFrom('interactions')
        .select(['id', 'user_id', 'post_id', 'action_type', 'created_at_ms'])
        .orderBy('id', 'desc')
        .limit(n);
      return (before === undefined ? newest : newest.where('id', '<', before)).execute();
    },
    (row) => row.id,
  );
  const interactions: EvalInteraction[] = [];
  for (const row of rows) {
    if (!(ACTION_TYPES as readonly string[]).includes(row.action_type)) continue;
    interactions.push({
      userId: row.user_id,
      postId: row.post_id,
      action: row.action_type as InteractionAction,
      atMs: Number(row.created_at_ms),
    });
  }
  const columns = [
    'posts.id',
    'posts.account_id',
    'accounts.username',
    'posts.plain_text',
    'posts.tag_names',
    'posts.language',
    'posts.created_at_ms',
    'posts.reblog_of_id',
    'posts.sensitive',
    'posts.visibility',
  ] as const;
  const base = () => db.selectFrom('posts').leftJoin('accounts', 'accounts.id', 'posts.account_id').select(columns);
  const posts: EvalPost[] = [];
  const toPost = (row: Awaited<ReturnType<ReturnType<typeof base>['execute']>>[number]): EvalPost => ({
    id: row.id,
    accountId: row.account_id,
    accountUsername: row.username ?? '',
    text: row.plain_text,
    tags: row.tag_names === '' ? [] : row.tag_names.split(' '),
    language: row.language,
    createdAtMs: Number(row.created_at_ms),
    favourites: 0,
    reblogs: 0,
    replies: 0,
    reblogOfId: row.reblog_of_id,
    sensitive: Number(row.sensitive) === 1,
    visibility: row.visibility,
  });
  const returning = rows.length < maxInteractions ? [] : await returningUsers(db, interactions);
  if (!Number.isFinite(newestPosts)) {
    for (const row of await base().execute()) posts.push(toPost(row));
    return buildDataset(posts, interactions, returning);
  }
  const ids = [...new Set(interactions.map((i) => i.postId))];
  for (let at = 0; at < ids.length; at += CHUNK) {
    for (const row of await base()
      .where('posts.id', 'in', ids.slice(at, at + CHUNK))
      .execute())
      posts.push(toPost(row));
  }
  for (const row of await base().orderBy('posts.created_at_ms', 'desc').limit(newestPosts).execute()) posts.push(toPost(row));
  return buildDataset(posts, interactions, returning);
}

/**
 * The users of a bounded read (`interactions`, the newest by id) who also interacted before its
 * earliest instant: their history is partly outside the read, so the fit must not take them
 * for newcomers — one coming back after a long gap would judge the cold start as a returning
 * user does (on the bench's data 4,499 of the read's 5,000 users; none of them looked new to
 * the fit there, being active from the read's start). One range of the (user, time) index per
 * user.
 */
async function returningUsers(db: Kysely<Database>, interactions: readonly EvalInteraction[]): Promise<string[]> {
  let earliestMs = Infinity;
  for (const i of interactions) earliestMs = Math.min(earliestMs, i.atMs);
  const users = [...new Set(interactions.map((i) => i.userId))];
  const returning: string[] = [];
  for (let at = 0; at < users.length; at += CHUNK) {
    const rows = await db
      .selectFrom('interactions')
      .select('user_id')
      .distinct()
      .where('user_id', 'in', users.slice(at, at + CHUNK))
      .where('created_at_ms', '<', earliestMs)
      .execute();
    for (const row of rows) returning.push(row.user_id);
  }
  return returning;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
