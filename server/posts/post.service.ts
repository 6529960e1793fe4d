/**
 * Posts: ingestion of Mastodon statuses (one transaction per batch), reads with
 * Mastodon paging, deletion. Every write is passed on to the ranking state so the
 * in-memory candidate pool matches the database.
 */
import type { Kysely } from 'kysely';
import { NotFoundError } from '../../src/errors.js';
import { assertWithinBounds, STATUS_BOUNDS } from '../../src/schemas/bounded-json.js';
import type { Status, StatusInput } from '../../src/schemas/post.schema.js';
import type { Database } from '../db/database.js';
import { LruCache } from '../../src/lru-cache.js';
import type { RankingState } from '../recommendations/ranking-state.js';
import { sortKeyOf } from './post-ids.js';
import { accountRow, normaliseTag, postRow, statusTags, toRankable, toStatus } from './post.mapper.js';
import * as repo from './post.repository.js';

export interface PostPage {
  statuses: Status[];
}

export interface PostListOptions {
  accountId?: string;
  tag?: string;
  maxId?: string;
  sinceId?: string;
  minId?: string;
  limit: number;
}

export class PostService {
  /** Rendered statuses by id (per-viewer flags false); counts are patched in place. */
  private readonly statusCache = new LruCache<string, Status>(20_000);
  /** Each cached status serialised once, without its closing brace (extra fields get appended). */
  private readonly jsonPrefixes = new Map<string, string>();

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

  /** Statuses already checked against STATUS_BOUNDS: only then is serialising them safe. */
  private async store(inputs: readonly StatusInput[], nowMs: number): Promise<Status[]> {
    const nowIso = new Date(nowMs).toISOString();
    const top: string[] = [];
    const ids = await this.db.transaction().execute(async (trx) => {
      const stored: string[] = [];
      for (const input of inputs) {
        let reblogOfId: string | null = null;
        let inherited: { plain_text: string; tag_names: string } | undefined;
        if (input.reblog) {
          const original = postRow(input.reblog, nowMs, null, input.reblog);
          await repo.upsertAccount(trx, accountRow(input.reblog.account, nowIso));
          await repo.upsertPost(trx, original, statusTags(input.reblog));
          reblogOfId = original.id;
          inherited = { plain_text: original.plain_text, tag_names: original.tag_names };
          stored.push(original.id);
        }
        const row = { ...postRow(input, nowMs, reblogOfId, input), ...inherited };
        await repo.upsertAccount(trx, accountRow(input.account, nowIso));
        await repo.upsertPost(trx, row, inherited ? [] : statusTags(input));
        stored.push(row.id);
        top.push(row.id);
      }
      return stored;
    });
    for (const id of ids) this.forget(id);
    const rankable = await repo.findRankableRows(this.db, ids);
    this.state.postsChanged(rankable.filter(isPoolable).map(toRankable));
    const byId = await this.statusesByIds(ids);
    return top.map((id) => byId.get(id)).filter((s): s is Status => s !== undefined);
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
    for (const gone of deleted) this.forget(gone);
    this.state.postsRemoved(deleted);
    return { status, deletedIds: deleted };
  }

  /** Rendered statuses by id (missing ids are absent from the map). */
  async statusesByIds(ids: readonly string[]): Promise<Map<string, Status>> {
    const out = new Map<string, Status>();
    const missing: string[] = [];
    for (const id of ids) {
      const cached = this.statusCache.peek(id);
      if (cached) out.set(id, cached);
      else missing.push(id);
    }
    if (missing.length > 0) {
      for (const status of await this.render(await repo.findPostsWithAccounts(this.db, missing))) {
        this.statusCache.set(status.id, status);
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
      const json = this.jsonPrefixes.get(id);
      if (json !== undefined) out.set(id, json);
      else (missing ??= []).push(id);
    }
    if (missing) {
      for (const [id, status] of await this.statusesByIds(missing)) {
        const json = JSON.stringify(status).slice(0, -1);
        if (this.jsonPrefixes.size >= 20_000) this.jsonPrefixes.clear();
        this.jsonPrefixes.set(id, json);
        out.set(id, json);
      }
    }
    return out;
  }

  private forget(id: string): void {
    this.statusCache.delete(id);
    this.jsonPrefixes.delete(id);
  }

  /** Keeps cached statuses' counters in step with interactions. */
  countsChanged(postId: string, counts: { favourites: number; reblogs: number; replies: number }): void {
    this.jsonPrefixes.delete(postId);
    const status = this.statusCache.peek(postId);
    if (status) {
      status.favourites_count = counts.favourites;
      status.reblogs_count = counts.reblogs;
      status.replies_count = counts.replies;
    }
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

/** Only public and unlisted posts are recommended. */
function isPoolable(row: repo.RankableRow): boolean {
  return row.visibility === 'public' || row.visibility === 'unlisted';
}
