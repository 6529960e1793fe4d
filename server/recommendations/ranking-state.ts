/**
 * The in-memory data path of recommendations, shared by the posts, interactions and
 * recommendations features of one app: the candidate pool (updated on every post write
 * and count change), user profiles (built lazily, updated on that user's events) and a
 * short-lived per-user result cache (dropped on that user's events and on post removal).
 */
import type { Kysely } from 'kysely';
import {
  CandidateIndex,
  DEFAULT_CANDIDATE_INDEX_OPTIONS,
  type CandidateIndexOptions,
  type RankablePost,
  type RankedItem,
  type UserProfile,
} from '../../src/ranking/index.js';
import type { Database } from '../db/database.js';
import { toRankable } from '../posts/post.mapper.js';
import { loadCandidateRows } from '../posts/post.repository.js';
import { LruCache } from '../../src/lru-cache.js';

export interface RankingStateOptions {
  /** Profiles kept in memory (least recently used dropped first). */
  profileCapacity: number;
  /** Users whose result lists are cached. */
  resultCapacity: number;
  /** How long a cached list may be served. */
  resultTtlMs: number;
}

export const DEFAULT_RANKING_STATE_OPTIONS: RankingStateOptions = {
  profileCapacity: 10_000,
  resultCapacity: 10_000,
  resultTtlMs: 30_000,
};

interface CachedLists {
  generation: number;
  lists: Map<string, { expiresAtMs: number; items: RankedItem[] }>;
}

export class RankingState {
  readonly options: RankingStateOptions;
  private readonly profiles: LruCache<string, UserProfile>;
  private readonly results: LruCache<string, CachedLists>;
  /** Bumped on each user's events, so a profile loaded concurrently is not cached stale. */
  private readonly userVersions = new Map<string, number>();
  /** Bumped when posts disappear, invalidating every cached list. */
  private generation = 0;

  constructor(
    readonly index: CandidateIndex,
    options: Partial<RankingStateOptions> = {},
  ) {
    this.options = { ...DEFAULT_RANKING_STATE_OPTIONS, ...options };
    this.profiles = new LruCache(this.options.profileCapacity);
    this.results = new LruCache(this.options.resultCapacity);
  }

  /** New or changed posts enter the pool. */
  postsChanged(posts: readonly RankablePost[]): void {
    for (const post of posts) this.index.upsert(post);
  }

  /** Deleted posts leave the pool and every cached list. */
  postsRemoved(ids: readonly string[]): void {
    for (const id of ids) this.index.remove(id);
    this.generation += 1;
  }

  /** A post's engagement changed. */
  countsChanged(postId: string, counts: { favourites: number; reblogs: number; replies: number }): void {
    this.index.updateCounts(postId, counts);
  }

  /** The user's cached profile, if any. */
  cachedProfile(userId: string): UserProfile | undefined {
    return this.profiles.get(userId);
  }

  /** Current event version of a user (compare before and after loading a profile). */
  userVersion(userId: string): number {
    return this.userVersions.get(userId) ?? 0;
  }

  /** Caches a freshly loaded profile unless the user changed while it loaded. */
  storeProfile(profile: UserProfile, loadedAtVersion: number): void {
    if (this.userVersion(profile.userId) === loadedAtVersion) this.profiles.set(profile.userId, profile);
  }

  /**
   * Records that a user's history changed: `update` applies the change to the cached
   * profile (when there is one), and the user's cached lists are dropped.
   */
  userChanged(userId: string, update?: (profile: UserProfile) => void): void {
    this.userVersions.set(userId, this.userVersion(userId) + 1);
    const profile = this.profiles.peek(userId);
    if (profile !== undefined) {
      if (update) update(profile);
      else this.profiles.delete(userId);
    }
    this.results.delete(userId);
  }

  /** A cached list still fresh at `nowMs`. */
  cachedList(userId: string, key: string, nowMs: number): RankedItem[] | undefined {
    const entry = this.results.get(userId);
    if (entry === undefined || entry.generation !== this.generation) return undefined;
    const list = entry.lists.get(key);
    if (list === undefined || list.expiresAtMs <= nowMs) return undefined;
    return list.items;
  }

  /** Caches a list for `resultTtlMs`. */
  storeList(userId: string, key: string, items: RankedItem[], nowMs: number): void {
    let entry = this.results.peek(userId);
    if (entry === undefined || entry.generation !== this.generation) {
      entry = { generation: this.generation, lists: new Map() };
      this.results.set(userId, entry);
    }
    if (entry.lists.size >= 16) entry.lists.clear();
    entry.lists.set(key, { expiresAtMs: nowMs + this.options.resultTtlMs, items });
  }
}

/** The ranking state of an app, with the candidate pool loaded from the database. */
export async function loadRankingState(
  db: Kysely<Database>,
  options: Partial<RankingStateOptions & { index: Partial<CandidateIndexOptions> }> = {},
): Promise<RankingState> {
  const indexOptions = { ...DEFAULT_CANDIDATE_INDEX_OPTIONS, ...options.index };
  const rows = await loadCandidateRows(db, indexOptions.maxRecent, indexOptions.maxPopular);
  return new RankingState(new CandidateIndex(rows.map(toRankable), indexOptions), options);
}
