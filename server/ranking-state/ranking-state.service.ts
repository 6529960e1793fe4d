/**
 * The one owner of the in-memory ranking state of an app: the candidate pool, the users'
 * profiles, the per-user result lists and the status caches. Writers announce committed
 * changes through RankingEvents; readers use the read methods below. The state decides
 * what each event recomputes or drops, so another instance's events (Redis, later) can be
 * applied here without any feature changing.
 */
import { LRUCache } from 'lru-cache';
import {
  applySignal,
  CandidateIndex,
  DEFAULT_CANDIDATE_INDEX_OPTIONS,
  type CandidateIndexOptions,
  type RankedItem,
  type UserProfile,
} from '../../src/ranking/index.js';
import type { PostCounts, RankingEvents, StoredPost, UserSignal } from './ranking-state.events.js';
import { DEFAULT_STATUS_CACHE_OPTIONS, StatusCache, type StatusCacheOptions } from './status-cache.js';

export interface RankingStateOptions extends StatusCacheOptions {
  /** Profiles kept in memory (least recently used dropped first). */
  profileCapacity: number;
  /** Users whose result lists are cached. */
  resultCapacity: number;
  /** How long a cached list may be served. */
  resultTtlMs: number;
  /** Bounds of the candidate pool. */
  index: CandidateIndexOptions;
}

export const DEFAULT_RANKING_STATE_OPTIONS: RankingStateOptions = {
  profileCapacity: 10_000,
  resultCapacity: 10_000,
  resultTtlMs: 30_000,
  index: DEFAULT_CANDIDATE_INDEX_OPTIONS,
  ...DEFAULT_STATUS_CACHE_OPTIONS,
};

/** Where the pool comes from: the posts feature's candidates within the pool's bounds. */
export type CandidateSource = (limits: { recent: number; popular: number }) => Promise<StoredPost[]>;

/** One cache's size, for the service_cache_entries / service_cache_bytes gauges. */
export interface CacheSize {
  cache: string;
  entries: number;
  /** Bytes (or characters, for string caches) when the cache is bounded by size. */
  bytes?: number;
}

interface CachedLists {
  generation: number;
  lists: Map<string, { expiresAtMs: number; items: RankedItem[] }>;
}

/** Lists kept per user (one per page size and filter): a client asking more is rare. */
const LISTS_PER_USER = 16;

/** Only public and unlisted posts are recommended. */
function isPoolable(post: StoredPost): boolean {
  return post.visibility === 'public' || post.visibility === 'unlisted';
}

export class RankingState implements RankingEvents {
  readonly options: RankingStateOptions;
  readonly statuses: StatusCache;
  private pool: CandidateIndex;
  private readonly profiles: LRUCache<string, UserProfile>;
  private readonly results: LRUCache<string, CachedLists>;
  /** Bumped on each user's events, so a profile loaded concurrently is not cached stale (bounded like the profiles). */
  private readonly userVersions: LRUCache<string, number>;
  /** Bumped when posts disappear, invalidating every cached list. */
  private generation = 0;
  /** Bumped by reload and erasure, so that no profile loaded before them is cached. */
  private epoch = 0;

  constructor(
    private readonly source: CandidateSource,
    options: Partial<RankingStateOptions> = {},
  ) {
    this.options = { ...DEFAULT_RANKING_STATE_OPTIONS, ...options, index: { ...DEFAULT_CANDIDATE_INDEX_OPTIONS, ...options.index } };
    this.pool = new CandidateIndex([], this.options.index);
    this.statuses = new StatusCache(this.options);
    this.profiles = new LRUCache({ max: this.options.profileCapacity });
    this.results = new LRUCache({ max: this.options.resultCapacity });
    this.userVersions = new LRUCache({ max: Math.max(this.options.profileCapacity, this.options.resultCapacity) * 2 });
  }

  // --- Events (RankingEvents): the only way anything here changes. ---

  postsStored(posts: readonly StoredPost[]): void {
    for (const post of posts) {
      this.statuses.forget(post.id);
      if (isPoolable(post)) this.pool.upsert(post);
      else if (this.pool.remove(post.id)) this.generation += 1;
    }
  }

  postsDeleted(ids: readonly string[]): void {
    for (const id of ids) {
      this.statuses.forget(id);
      this.pool.remove(id);
    }
    this.generation += 1;
  }

  postCountsChanged(postId: string, counts: PostCounts): void {
    this.pool.updateCounts(postId, counts);
    this.statuses.countsChanged(postId, counts);
  }

  userSignalsChanged(userId: string, change: UserSignal): void {
    this.bumpUser(userId);
    const profile = this.profiles.peek(userId);
    if (profile !== undefined) applySignal(profile, change, this.pool);
    this.results.delete(userId);
  }

  userErased(userId: string): void {
    this.bumpUser(userId);
    this.profiles.delete(userId);
    this.results.delete(userId);
  }

  async reload(): Promise<void> {
    const { maxRecent, maxPopular } = this.options.index;
    const posts = await this.source({ recent: maxRecent, popular: maxPopular });
    this.pool = new CandidateIndex(posts.filter(isPoolable), this.options.index);
    this.epoch += 1;
    this.generation += 1;
    this.profiles.clear();
    this.results.clear();
    this.statuses.clear();
  }

  // --- Reads. ---

  /** The candidate pool (replaced by `reload`: read it per request, do not keep it). */
  get index(): CandidateIndex {
    return this.pool;
  }

  /** The user's cached profile, if any. */
  cachedProfile(userId: string): UserProfile | undefined {
    return this.profiles.get(userId);
  }

  /** Where a user stands now: compare before and after loading a profile (`storeProfile`). */
  userVersion(userId: string): string {
    return `${this.epoch}:${this.userVersions.get(userId) ?? 0}`;
  }

  /** Caches a freshly loaded profile unless the user (or the state) changed while it loaded. */
  storeProfile(profile: UserProfile, loadedAtVersion: string): void {
    if (this.userVersion(profile.userId) === loadedAtVersion) this.profiles.set(profile.userId, profile);
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
    if (entry.lists.size >= LISTS_PER_USER) entry.lists.clear();
    entry.lists.set(key, { expiresAtMs: nowMs + this.options.resultTtlMs, items });
  }

  /** Every cache's size (the pool's vocabulary and authors included), for the gauges. */
  cacheSizes(): CacheSize[] {
    const statuses = this.statuses.sizes();
    return [
      { cache: 'candidate_pool', entries: this.pool.size },
      { cache: 'vocabulary', entries: this.pool.vocabulary.liveTerms },
      { cache: 'profiles', entries: this.profiles.size },
      { cache: 'results', entries: this.results.size },
      { cache: 'statuses', entries: statuses.statuses },
      { cache: 'status_json', entries: statuses.json, bytes: statuses.jsonChars },
    ];
  }

  private bumpUser(userId: string): void {
    this.userVersions.set(userId, (this.userVersions.get(userId) ?? 0) + 1);
  }
}

/** A state with its candidate pool loaded from `source`. */
export async function loadRankingState(source: CandidateSource, options: Partial<RankingStateOptions> = {}): Promise<RankingState> {
  const state = new RankingState(source, options);
  await state.reload();
  return state;
}
