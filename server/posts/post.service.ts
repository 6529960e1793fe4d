/**
 * Posts: ingestion of Mastodon statuses (one transaction per batch), reads with
 * Mastodon paging, deletion, counters. Every committed write is announced to the ranking
 * state (RankingEvents), which keeps the pool and the status caches in step; the other
 * features read posts through this service, never through its repository.
 */
import type { Kysely } from 'kysely';
import { ConflictError, NotFoundError } from '../../src/errors.js';
import { assertWithinBounds, findJsonBoundsViolation, STATUS_BOUNDS } from '../../src/schemas/bounded-json.js';
import { StatusInputSchema, type AccountInput, type Status, type StatusInput } from '../../src/schemas/post.schema.js';
import { CANDIDATE_CONSENT, consentsToDiscovery } from '../../src/mastodon/timeline-consent.js';
import type { Database } from '../platform/db/database.js';
import { validatorCompiler } from '../platform/plugins/validator.js';
import {
  DEFAULT_SOURCE_SHARES,
  normaliseTag,
  type EngagedPost,
  type PoolCounts,
  type RankablePost,
  type SourceShares,
} from '../../src/ranking/index.js';
import type { StoredPost } from '../ranking-state/ranking-state.events.js';
import type { CandidateLimits, RankingState } from '../ranking-state/ranking-state.service.js';
import { sortKeyOf } from '../../src/post-ids.js';
import { accountRow, statusRows, toEngagedPost, toRankable, toStatus } from './post.mapper.js';
import * as repo from './post.repository.js';
import * as identity from './post-identity.repository.js';
import { writeInstanceStatuses } from './instance-statuses.js';

export type { CountDeltas } from './post.repository.js';

/** A post whose counters just changed: what an interaction needs of it, and the new counters. */
export interface AdjustedPost {
  post: EngagedPost;
  counts: Required<PoolCounts> & { id: string };
  /** When the post was created (an interaction cannot be older). */
  createdAtMs: number;
}

export interface PostListOptions {
  accountId?: string;
  tag?: string;
  maxId?: string;
  sinceId?: string;
  minId?: string;
  limit: number;
}

/** The posts the candidate pool starts from: the `recent` newest and `popular` most engaging recommendable ones, each list under `shares`. */
export async function candidatePosts(
  db: Kysely<Database>,
  limits: CandidateLimits,
  shares: SourceShares = DEFAULT_SOURCE_SHARES,
): Promise<StoredPost[]> {
  return (await repo.loadCandidateRows(db, limits.recent, limits.popular, shares, limits.createdNotAfterMs)).map(toStoredPost);
}

/** Whether any post is stored (demo seeding only fills an empty database). */
export async function hasPosts(db: Kysely<Database>): Promise<boolean> {
  return (await repo.countPosts(db)) > 0;
}

/** Ids written by writeStatuses: every post stored (reblogged originals included) and the statuses themselves, in input order. */
export interface WrittenStatuses {
  stored: string[];
  top: string[];
}

/**
 * The one path that turns statuses into rows and writes them (ingest, demo seeding, timelines),
 * inside the caller's transaction: accounts, posts and tags in multi-row upserts (a status
 * stored again replaces the old one). With `keepOriginals` each status's JSON is kept as sent.
 * The caller announces the stored posts after its commit (postsStored), or reloads the ranking state.
 */
export async function writeStatuses(
  trx: Kysely<Database>,
  inputs: readonly StatusInput[],
  nowMs: number,
  options: { keepOriginals: boolean },
): Promise<WrittenStatuses> {
  const rows = inputs.map((input) => statusRows(input, nowMs, options.keepOriginals));
  await repo.upsertAccounts(
    trx,
    rows.flatMap((r) => r.accounts),
  );
  await repo.upsertPosts(
    trx,
    rows.flatMap((r) => r.posts),
  );
  return { stored: rows.flatMap((r) => r.posts.map((p) => p.row.id)), top: rows.map((r) => r.id) };
}

/** Stores (or refreshes) accounts that may have no status yet, inside the caller's transaction. */
export async function writeAccounts(
  trx: Kysely<Database>,
  inputs: readonly AccountInput[],
  nowMs: number,
  options: { keepOriginals: boolean },
): Promise<void> {
  const nowIso = new Date(nowMs).toISOString();
  await repo.upsertAccounts(
    trx,
    inputs.map((input) => accountRow(input, nowIso, options.keepOriginals)),
  );
}

/**
 * Adds to many posts' counters inside the caller's transaction (never below zero), the way
 * each interaction does: a bulk load of interactions keeps the counters consistent with them.
 */
export async function addPostCounts(trx: Kysely<Database>, deltas: ReadonlyMap<string, repo.CountDeltas>): Promise<void> {
  await repo.adjustManyPostCounts(trx, deltas);
}

/** What signals about these posts teach (author, tags, text), by id; missing ids are absent. */
export async function engagedPosts(db: Kysely<Database>, ids: readonly string[]): Promise<Map<string, EngagedPost>> {
  const out = new Map<string, EngagedPost>();
  for (let i = 0; i < ids.length; i += ID_CHUNK) {
    for (const row of await repo.findRankableRows(db, ids.slice(i, i + ID_CHUNK))) out.set(row.id, toEngagedPost(row));
  }
  return out;
}

export class PostService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly state: RankingState,
  ) {}

  /**
   * Stores (or refreshes) statuses with their accounts, tags and reblogged originals; a
   * status beyond STATUS_BOUNDS is a ValidationError naming it as `statuses[i]…` (the batch body).
   */
  async ingest(inputs: readonly StatusInput[], nowMs = Date.now()): Promise<Status[]> {
    inputs.forEach((input, i) => assertWithinBounds(input, STATUS_BOUNDS, `statuses[${i}]`));
    return this.store(inputs, nowMs);
  }

  /** Stores one status (a ValidationError naming the path when it is beyond STATUS_BOUNDS); returns it as rendered. */
  async ingestOne(input: StatusInput, nowMs = Date.now()): Promise<Status> {
    assertWithinBounds(input, STATUS_BOUNDS, '');
    const [status] = await this.store([input], nowMs);
    if (!status) throw new Error('ingested status vanished');
    return status;
  }

  /**
   * Stores statuses an instance sent (its canonical host), by uri under the origin's word only
   * (./instance-statuses.ts); statuses beyond STATUS_BOUNDS or without a usable uri are not
   * stored, nor new ones beyond `maxNew`. Returns, per input, the service's id of the status
   * (undefined when not stored), and how many posts are new.
   */
  async ingestFromInstance(
    instance: string,
    inputs: readonly StatusInput[],
    options: { nowMs?: number; maxNew?: number } = {},
  ): Promise<{ ids: (string | undefined)[]; created: number }> {
    if (inputs.length === 0) return { ids: [], created: 0 };
    const nowMs = options.nowMs ?? Date.now();
    const { written, ids, created } = await this.db
      .transaction()
      .execute((trx) => writeInstanceStatuses(trx, instance, inputs, nowMs, options.maxNew));
    if (written.length > 0) this.state.postsStored((await repo.findRankableRows(this.db, written)).map(toStoredPost));
    return { ids, created };
  }

  /** The service's id of the post an instance names by its own id; undefined when the instance never showed it. */
  async postIdFor(instance: string, localId: string): Promise<string | undefined> {
    return (await identity.postIdsForLocal(this.db, instance, [localId])).get(localId);
  }

  /** The service's id of the account an instance names by its own id; undefined when the instance never showed it. */
  async accountIdFor(instance: string, localId: string): Promise<string | undefined> {
    return (await identity.accountIdsForLocal(this.db, instance, [localId])).get(localId);
  }

  /** An instance's own ids for the service's posts and accounts (those it never showed absent). */
  async localIds(
    instance: string,
    postIds: readonly string[],
    accountIds: readonly string[],
  ): Promise<{ posts: Map<string, string>; accounts: Map<string, string> }> {
    return {
      posts: await identity.localPostIds(this.db, instance, postIds),
      accounts: await identity.localAccountIds(this.db, instance, accountIds),
    };
  }

  /** Statuses already checked against STATUS_BOUNDS: only then is serialising them safe. */
  private async store(inputs: readonly StatusInput[], nowMs: number): Promise<Status[]> {
    await this.assertUrisFree(inputs);
    const { stored, top } = await this.db.transaction().execute((trx) => writeStatuses(trx, inputs, nowMs, { keepOriginals: true }));
    this.state.postsStored((await repo.findRankableRows(this.db, stored)).map(toStoredPost));
    const byId = await this.statusesByIds(stored);
    return top.map((id) => byId.get(id)).filter((s): s is Status => s !== undefined);
  }

  /** A ConflictError when a status's uri is already another post's (a post is its uri). */
  private async assertUrisFree(inputs: readonly StatusInput[]): Promise<void> {
    const wanted = new Map<string, string>();
    for (const input of inputs) {
      for (const status of input.reblog ? [input.reblog, input] : [input]) {
        if (status.uri !== undefined && status.id !== undefined) wanted.set(status.uri, status.id);
      }
    }
    if (wanted.size === 0) return;
    for (const [uri, stored] of await identity.postsByUri(this.db, [...wanted.keys()])) {
      if (stored.id !== wanted.get(uri)) throw new ConflictError(`The uri ${uri} is already post ${stored.id}: a post is its uri`);
    }
  }

  /** One status; NotFoundError when absent. */
  async get(id: string): Promise<Status> {
    const status = (await this.statusesByIds([id])).get(id);
    if (!status) throw new NotFoundError(`No post with id ${id}`);
    return status;
  }

  /** A page of statuses, newest first. */
  async list(options: PostListOptions): Promise<Status[]> {
    const rows = await repo.listPosts(this.db, {
      ...(options.accountId !== undefined ? { accountId: options.accountId } : {}),
      ...(options.tag !== undefined ? { tag: normaliseTag(options.tag) } : {}),
      ...(options.maxId !== undefined ? { maxKey: sortKeyOf(options.maxId) } : {}),
      ...(options.sinceId !== undefined ? { sinceKey: sortKeyOf(options.sinceId) } : {}),
      ...(options.minId !== undefined ? { minKey: sortKeyOf(options.minId) } : {}),
      limit: options.limit,
    });
    return this.render(rows);
  }

  /** Deletes a post (and its reblogs); NotFoundError when absent. */
  async delete(id: string): Promise<{ status: Status; deletedIds: string[] }> {
    const status = await this.get(id);
    const deleted = await this.db.transaction().execute((trx) => repo.deletePost(trx, id));
    if (deleted.length === 0) throw new NotFoundError(`No post with id ${id}`);
    this.state.postsDeleted(deleted);
    return { status, deletedIds: deleted };
  }

  /** Rendered statuses by id (missing ids are absent from the map). */
  async statusesByIds(ids: readonly string[]): Promise<Map<string, Status>> {
    const out = new Map<string, Status>();
    const missing: string[] = [];
    for (const id of ids) {
      const cached = this.state.statuses.status(id);
      if (cached) out.set(id, cached);
      else missing.push(id);
    }
    if (missing.length > 0) {
      for (const status of await this.render(await repo.findPostsWithAccounts(this.db, missing))) {
        this.state.statuses.keepStatus(status);
        out.set(status.id, status);
      }
    }
    return out;
  }

  /**
   * Statuses serialised as JSON without the closing brace, for hot lists that append
   * their own fields: serialising a post once instead of on every response.
   */
  async statusJsonPrefixes(ids: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    let missing: string[] | undefined;
    for (const id of ids) {
      const json = this.state.statuses.jsonPrefix(id);
      if (json !== undefined) out.set(id, json);
      else (missing ??= []).push(id);
    }
    if (missing) {
      for (const [id, status] of await this.statusesByIds(missing)) {
        const json = JSON.stringify(status).slice(0, -1);
        this.state.statuses.keepJsonPrefix(id, json);
        out.set(id, json);
      }
    }
    return out;
  }

  /** The ranking view of posts by id (missing ids are absent), for building profiles from history. */
  async rankablePosts(ids: readonly string[]): Promise<Map<string, RankablePost>> {
    return this.rankingRows(ids, toRankable);
  }

  /**
   * The ranking view of posts by id with their visibility, as the candidate pool holds them
   * (missing ids are absent): the co-engaged posts a ranking fetches beside the pool, in one
   * read of the ranking columns instead of the rendered statuses.
   */
  async storedPosts(ids: readonly string[]): Promise<Map<string, StoredPost>> {
    return this.rankingRows(ids, toStoredPost);
  }

  /** The ranking columns of posts by id, read in chunks of ID_CHUNK, each row as `view` makes it (missing ids are absent). */
  private async rankingRows<T>(ids: readonly string[], view: (row: repo.RankableRow) => T): Promise<Map<string, T>> {
    const out = new Map<string, T>();
    for (let i = 0; i < ids.length; i += ID_CHUNK) {
      for (const row of await repo.findRankableRows(this.db, ids.slice(i, i + ID_CHUNK))) out.set(row.id, view(row));
    }
    return out;
  }

  /** What a signal about a post teaches (author, tags, text), read inside the caller's transaction; undefined when absent. */
  async engagedPost(trx: Kysely<Database>, id: string): Promise<EngagedPost | undefined> {
    const [row] = await repo.findRankableRows(trx, [id]);
    return row === undefined ? undefined : toEngagedPost(row);
  }

  /**
   * Adds to a post's counters inside the caller's transaction (never below zero); returns
   * the new counts with the post's author, tags and text, or undefined when there is no such post.
   * The caller announces the change (postCountsChanged) after its commit.
   */
  async adjustCounts(trx: Kysely<Database>, postId: string, deltas: repo.CountDeltas): Promise<AdjustedPost | undefined> {
    const row = await repo.adjustPostCounts(trx, postId, deltas);
    if (!row) return undefined;
    return {
      post: toEngagedPost(row),
      counts: {
        id: row.id,
        favourites: row.favourites_count,
        reblogs: row.reblogs_count,
        replies: row.replies_count,
        bookmarks: row.bookmarks_count,
      },
      createdAtMs: Number(row.created_at_ms),
    };
  }

  /** A post's counters; NotFoundError when the post does not exist. */
  async counts(
    postId: string,
  ): Promise<{ favourites_count: number; reblogs_count: number; replies_count: number; bookmarks_count: number }> {
    const counts = await repo.findPostCounts(this.db, postId);
    if (!counts) throw new NotFoundError(`No post with id ${postId}`);
    return counts;
  }

  private async render(rows: repo.PostWithAccountRow[]): Promise<Status[]> {
    const originals = [...new Set(rows.map((r) => r.reblog_of_id).filter((id): id is string => id !== null))];
    const originalStatuses = originals.length > 0 ? await this.statusesByIds(originals) : new Map<string, Status>();
    return rows.map((row) => {
      const status = toStatus(row);
      if (row.reblog_of_id !== null) {
        const original = originalStatuses.get(row.reblog_of_id);
        if (original) {
          const { reblog: _nested, ...core } = original;
          status.reblog = core;
          status.content = '';
          status.tags = [];
        }
      }
      return status;
    });
  }
}

/** Ids per `IN (…)` read: well under SQLite's bound on parameters. */
const ID_CHUNK = 500;

function toStoredPost(row: repo.RankableRow): StoredPost {
  return { ...toRankable(row), visibility: row.visibility };
}

const checkStatusInput = validatorCompiler({ schema: StatusInputSchema, httpPart: 'body', method: 'POST', url: '/' }) as (
  value: unknown,
) => boolean | { error?: unknown };

/**
 * Whether a status an instance sent may be stored as a candidate post: its authors consent
 * to discovery (a sensitive status too: the ranking leaves it out for users who do not allow
 * sensitive posts), and it fits the stored shape and bounds (the rule the timelines apply,
 * shared with the proxy's interaction logging and the FASP trends).
 */
export function mayStoreStatus(status: Record<string, unknown>): boolean {
  return consentsToDiscovery(status, CANDIDATE_CONSENT) && isStorableStatus(status);
}

/** Whether a status fits the stored shape (the posts API's input schema) and bounds, consent aside. */
export function isStorableStatus(status: Record<string, unknown>): boolean {
  const verdict = checkStatusInput(status);
  const valid = typeof verdict === 'boolean' ? verdict : verdict.error === undefined;
  return valid && findJsonBoundsViolation(status, STATUS_BOUNDS) === undefined;
}
