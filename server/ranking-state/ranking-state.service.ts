/**
 * The one owner of the in-memory ranking state of an app: the candidate pool, the users'
 * profiles, the per-user result lists and the status caches. Writers announce committed
 * changes through RankingEvents; readers use the read methods below. The state decides
 * what each event recomputes or drops, so another instance's events (Redis, later) can be
 * applied here without any feature changing.
 */
import { budgetShareBytes, DEFAULT_MEMORY_BUDGET_MB } from './memory-budget.js';
import { LRUCache } from 'lru-cache';
import {
  applySignal,
  CandidateIndex,
  estimatedProfileBytes,
  interestVector,
  type DecayedSums,
  type StoredDecayedSums,
  DEFAULT_CANDIDATE_INDEX_OPTIONS,
  DEFAULT_CO_ENGAGEMENT_OPTIONS,
  type CandidateIndexOptions,
  type CoEngagementChange,
  type CoEngagementOptions,
  type CoEngagementReader,
  type RankedItem,
  type RankablePost,
  type TermWeigher,
  type UserProfile,
} from '../../src/ranking/index.js';
import {
  wireRankingEvent,
  type PostCounts,
  type RankingEventMessage,
  type RankingEvents,
  type StoredPost,
  type UserSignal,
} from './ranking-state.events.js';
import { DEFAULT_STATUS_CACHE_OPTIONS, StatusCache, type StatusCacheOptions } from './status-cache.js';
import { CoEngagementHolder, DEFAULT_CO_ENGAGEMENT_HISTORY, type CoEngagementSource } from './co-engagement.state.js';
import { CollaborativeCandidates } from './collaborative-candidates.js';
import { ModelledCoEngagement, type ItemModel } from '../../src/ranking/item-model.js';
import { RecentInteractions, rowsForWindow } from './recent-interactions.js';
import {
  completeRankingDefault,
  rankingOf,
  sameRankingDefault,
  SHIPPED_RANKING_DEFAULT,
  startingRankingDefault,
  type RankingDefault,
} from '../../src/ranking/ranking-default.js';
import type { AlgorithmConfig, RankingKnobs } from '../../src/ranking/ranking.types.js';
import { INTERACTION_FUTURE_SKEW_MS } from '../../src/interactions/interaction-time.js';

/** An interaction received more than this long after it happened is history being imported (the ranking's clock). */
const IMPORTED_HISTORY_LAG_MS = 24 * 3_600_000;

/** When an interaction was received: its id's time (ids are made from the receipt time, src/post-ids.ts), else `atMs`. */
function receivedAtOf(id: string, atMs: number): number {
  return /^\d{1,20}$/.test(id) ? Number(BigInt(id) >> 16n) : atMs;
}

/** The instant lists are scored at, and the newest creation time a candidate may have. */
export interface RankingInstant {
  readonly atMs: number;
  readonly createdNotAfterMs: number;
}

export interface RankingStateOptions extends StatusCacheOptions {
  /** Profiles kept in memory (least recently used dropped first). */
  profileCapacity: number;
  /** Bytes the kept profiles may hold (estimated: `estimatedProfileBytes`), whatever their number. */
  profileMaxBytes: number;
  /** Users whose result lists are cached. */
  resultCapacity: number;
  /**
   * Bytes the cached lists may hold (estimated per ranked item), with what is kept with them
   * (keepWithList: a first page as sent, ~8.4 KB gzipped, ~49 KB as JSON), whatever the number of
   * users. 96 MB: ~5,600 users with a 20-post list and its gzipped page (~17 KB each, measured
   * by heap deltas on the bench data; docs/ranking.md).
   */
  resultMaxBytes: number;
  /**
   * How long a cached list may be served while nothing of its user's changes (their events drop
   * it at once; a pull-to-refresh asks with min_id, another list). 2 minutes: newer posts and
   * counts wait at most that long, and a user paging or coming back within it is not ranked again.
   */
  resultTtlMs: number;
  /** Bounds of the candidate pool (collaborative candidates included). */
  index: CandidateIndexOptions;
  /** Bounds of the co-engagement state and its pairing window. */
  coEngagement: CoEngagementOptions;
  /** Stored interactions (the newest) the co-engagement state is rebuilt from. */
  coEngagementHistory: number;
  /** Collaborative candidates held beside the pool (`index.maxCollaborative` when unset). */
  collaborativeCandidates?: number;
  /** Bytes the writers' memory of users' newest interactions may hold (RecentInteractions). */
  recentInteractionsMaxBytes: number;
}

export const DEFAULT_RANKING_STATE_OPTIONS: RankingStateOptions = {
  profileCapacity: 10_000,
  profileMaxBytes: budgetShareBytes(DEFAULT_MEMORY_BUDGET_MB, 'profiles'),
  resultCapacity: 10_000,
  resultMaxBytes: budgetShareBytes(DEFAULT_MEMORY_BUDGET_MB, 'results'),
  resultTtlMs: 120_000,
  index: DEFAULT_CANDIDATE_INDEX_OPTIONS,
  coEngagement: DEFAULT_CO_ENGAGEMENT_OPTIONS,
  coEngagementHistory: DEFAULT_CO_ENGAGEMENT_HISTORY,
  recentInteractionsMaxBytes: budgetShareBytes(DEFAULT_MEMORY_BUDGET_MB, 'recentInteractions'),
  ...DEFAULT_STATUS_CACHE_OPTIONS,
};

/** Where the pool comes from: the posts feature's candidates within the pool's bounds. */
export type CandidateSource = (limits: CandidateLimits) => Promise<StoredPost[]>;

/** What the candidate pool is read from: the `recent` newest and `popular` most engaging posts, created by `createdNotAfterMs` when given. */
export interface CandidateLimits {
  readonly recent: number;
  readonly popular: number;
  /** Under an imported history, its end (`RankingState.importedHistoryEnd`): posts created later did not exist yet. */
  readonly createdNotAfterMs?: number;
}

/** One cache's size, for the service_cache_entries / service_cache_bytes gauges. */
export interface CacheSize {
  cache: string;
  entries: number;
  /** Bytes (or characters, for string caches) when the cache is bounded by size. */
  bytes?: number;
}

interface CachedLists {
  generation: number;
  lists: Map<string, CachedList>;
}

/** A cached list and what a caller keeps with it (keepWithList: the recommendations' first page as sent). */
interface CachedList {
  expiresAtMs: number;
  items: RankedItem[];
  kept?: { value: object; bytes: number };
}

/** How long the writers trust a user's newest interactions read from the database (retention's purges are not announced). */
const RECENT_INTERACTIONS_TTL_MS = 10 * 60_000;

/** Lists kept per user (one per page size and filter): a client asking more is rare. */
const LISTS_PER_USER = 16;

/** Estimated bytes of one cached ranked item (its features and reason; the post is the pool's) and of a user's entry. */
const RESULT_ITEM_BYTES = 400;
const RESULT_ENTRY_BYTES = 500;

function cachedListsBytes(entry: CachedLists): number {
  let bytes = RESULT_ENTRY_BYTES;
  for (const list of entry.lists.values()) bytes += RESULT_ITEM_BYTES * list.items.length + (list.kept?.bytes ?? 0);
  return bytes;
}

/** Only public and unlisted posts are recommended. */
function isPoolable(post: StoredPost): boolean {
  return post.visibility === 'public' || post.visibility === 'unlisted';
}

/** The candidate pool of these stored posts (those that may be recommended), as `reload` builds it. */
export function candidatePool(
  posts: readonly StoredPost[],
  options: CandidateIndexOptions = DEFAULT_CANDIDATE_INDEX_OPTIONS,
): CandidateIndex {
  return new CandidateIndex(posts.filter(isPoolable), options);
}

/** What changes the candidate pool: the post events. */
type PoolEvent = Extract<RankingEventMessage, { type: 'postsStored' | 'postsDeleted' | 'postCountsChanged' }>;

function applyPoolEvent(pool: CandidateIndex, event: PoolEvent): void {
  if (event.type === 'postsStored') {
    for (const post of event.posts) {
      if (isPoolable(post)) pool.upsert(post);
      else pool.remove(post.id);
    }
  } else if (event.type === 'postsDeleted') {
    for (const id of event.ids) pool.remove(id);
  } else {
    pool.updateCounts(event.postId, event.counts, event.atMs);
  }
}

export class RankingState implements RankingEvents, TermWeigher {
  readonly options: RankingStateOptions;
  readonly statuses: StatusCache;
  private pool: CandidateIndex;
  private readonly profiles: LRUCache<string, UserProfile>;
  private readonly results: LRUCache<string, CachedLists>;
  /** Bumped on each user's events, so a profile loaded concurrently is not cached stale (bounded like the profiles). */
  private readonly userVersions: LRUCache<string, number>;
  /**
   * Interest vectors stored by writes whose signals are not announced yet (uncommitted, or
   * committed a moment ago), by user: later writes build on them, and no profile loads meanwhile.
   */
  private readonly unannounced = new Map<string, StoredDecayedSums>();
  /** Bumped when posts disappear, invalidating every cached list. */
  private generation = 0;
  /** Bumped by reload and erasure, so that no profile loaded before them is cached. */
  private epoch = 0;
  private readonly erasureListeners: Array<(userId: string) => void> = [];
  /** The periodic item–item model served beside the co-engagement state (item-model.agent.ts), and its reader over the current state. */
  private itemModel: { readonly id: string; readonly model: ItemModel } | undefined;
  private modelled: ModelledCoEngagement | undefined;
  /** Deletes the stored model (attached by the item model's feature): an erasure runs it. */
  private itemModelDropper: (() => Promise<void>) | undefined;
  private erasures = 0;
  /** Hear this instance's own events (the Redis fan-out sends them to the other instances). */
  private readonly localEventListeners: Array<(message: RankingEventMessage) => void> = [];
  /** Set while another instance's event is applied: it is not announced again. */
  private applyingRemote = false;
  /**
   * One log per reload in progress of the pool events applied meanwhile: the pool a reload
   * builds comes from a read that may have missed them (a post stored, deleted or counted
   * after the read, announced before the new pool replaced the old), so they are applied to
   * it again, in order. Each is idempotent: the latest state of a post wins.
   */
  private readonly reloadLogs = new Set<PoolEvent[]>();
  /** Item-to-item co-engagement (the collaborative feature), rebuilt from the stored interactions. */
  private readonly co: CoEngagementHolder;
  /**
   * Users' newest stored interactions, for the co-engagement writers' pairing (changed by the
   * writers inside their transactions, forgotten here on the events that delete interactions).
   */
  readonly recentInteractions: RecentInteractions;
  /** The co-engagement rebuild of the last erasure (see `erasureApplied`). */
  private erasureRebuild: Promise<void> = Promise.resolve();
  /** Which co-engaged posts from outside the pool are fetched, and which cannot be. */
  readonly collaborative: CollaborativeCandidates;
  /** The default a fit or an operator chose; undefined: the starting point the community's pace names. */
  private chosenPoint: RankingDefault | undefined;
  /** The default in effect (`refreshDefault`). */
  private defaultPoint: RankingDefault = SHIPPED_RANKING_DEFAULT;
  private signals = 0;
  private lastSignalMs = 0;
  /**
   * The interaction that happened last, of those this process recorded or read at its last
   * co-engagement rebuild: when it happened, and when the service received it.
   */
  private newestInteraction: { readonly atMs: number; readonly receivedAtMs: number } | undefined;
  /**
   * The pool the last reload built, until the co-engagement rebuild's read of the newest stored
   * interactions dates its counters (`CandidateIndex.redate`): the engagement's decay and the
   * community's pace count from each interaction's own time (docs/ranking.md).
   */
  private poolToDate: CandidateIndex | undefined;
  /** The imported history (its newest interaction's instant) `reloadForImportedHistory` last built the pool for. */
  private reloadedForHistoryAtMs: number | undefined;
  private defaultConfig: { readonly config: AlgorithmConfig; readonly options: RankingKnobs } = rankingOf(SHIPPED_RANKING_DEFAULT);

  /** @param history the stored interactions the co-engagement state is rebuilt from (none: it starts empty). */
  constructor(
    private readonly source: CandidateSource,
    options: Partial<RankingStateOptions> = {},
    private readonly history?: CoEngagementSource,
  ) {
    this.options = {
      ...DEFAULT_RANKING_STATE_OPTIONS,
      ...options,
      index: {
        ...DEFAULT_CANDIDATE_INDEX_OPTIONS,
        ...options.index,
        ...(options.collaborativeCandidates === undefined ? {} : { maxCollaborative: options.collaborativeCandidates }),
      },
      coEngagement: { ...DEFAULT_CO_ENGAGEMENT_OPTIONS, ...options.coEngagement },
    };
    this.pool = new CandidateIndex([], this.options.index);
    this.recentInteractions = new RecentInteractions({
      rowsPerUser: rowsForWindow(this.options.coEngagement.window),
      maxBytes: this.options.recentInteractionsMaxBytes,
      ttlMs: RECENT_INTERACTIONS_TTL_MS,
    });
    this.co = new CoEngagementHolder(
      history && this.fillingRecentInteractions(history),
      this.options.coEngagement,
      this.options.coEngagementHistory,
    );
    this.collaborative = new CollaborativeCandidates(this);
    this.statuses = new StatusCache(this.options);
    this.profiles = new LRUCache({
      max: this.options.profileCapacity,
      maxSize: this.options.profileMaxBytes,
      sizeCalculation: estimatedProfileBytes,
    });
    this.results = new LRUCache({
      max: this.options.resultCapacity,
      maxSize: this.options.resultMaxBytes,
      sizeCalculation: cachedListsBytes,
    });
    this.userVersions = new LRUCache({ max: Math.max(this.options.profileCapacity, this.options.resultCapacity) * 2 });
  }

  /** The rebuild's read also gives the writers' memory each user's newest rows (when it carries their instants and ids). */
  private fillingRecentInteractions(history: CoEngagementSource): CoEngagementSource {
    return async (limit) => {
      const mark = this.recentInteractions.mark;
      const events = await history(limit);
      this.recentInteractions.fill(events, events.length < limit, mark);
      // A pool a reload just built holds undated counters: these interactions' own times date them.
      const pool = this.poolToDate;
      this.poolToDate = undefined;
      if (pool !== undefined && pool === this.pool)
        for (const event of events)
          if (event.atMs !== undefined && event.action !== undefined) pool.redate(event.postId, event.action, event.atMs);
      // A restart or an import's reload learns the newest interaction's time here (the ranking's clock).
      for (const event of events) {
        if (event.atMs !== undefined)
          this.interactionSeen(event.atMs, event.id === undefined ? event.atMs : receivedAtOf(event.id, event.atMs));
      }
      return events;
    };
  }

  // --- Events (RankingEvents): the only way anything here changes. ---

  postsStored(posts: readonly StoredPost[]): void {
    for (const post of posts) {
      this.statuses.forget(post.id);
      if (!isPoolable(post) && this.pool.get(post.id) !== undefined) this.generation += 1;
    }
    this.applyToPool({ type: 'postsStored', posts });
    this.announceLocal({ type: 'postsStored', posts });
  }

  postsDeleted(ids: readonly string[]): void {
    for (const id of ids) this.statuses.forget(id);
    this.co.remove(ids);
    // Their interactions went with them (a foreign key's cascade).
    this.recentInteractions.postsRemoved(ids);
    this.applyToPool({ type: 'postsDeleted', ids });
    this.generation += 1;
    this.announceLocal({ type: 'postsDeleted', ids });
  }

  postCountsChanged(postId: string, counts: PostCounts, atMs?: number): void {
    const event: PoolEvent =
      atMs === undefined ? { type: 'postCountsChanged', postId, counts } : { type: 'postCountsChanged', postId, counts, atMs };
    this.applyToPool(event);
    this.statuses.countsChanged(postId, counts);
    this.announceLocal(event);
  }

  /** Applies a pool event to the pool, and logs it for every reload in progress. */
  private applyToPool(event: PoolEvent): void {
    applyPoolEvent(this.pool, event);
    for (const log of this.reloadLogs) log.push(event);
  }

  userSignalsChanged(userId: string, change: UserSignal): void {
    this.signalSeen();
    if (change.kind === 'interaction' && change.undo !== true) this.interactionSeen(change.interaction.createdAtMs, Date.now());
    this.bumpUser(userId);
    const profile = this.profiles.peek(userId);
    if (profile !== undefined) {
      applySignal(profile, change, this.pool);
      // Stored again so that the cache counts its new size (setting the same object would not).
      this.profiles.delete(userId);
      this.profiles.set(userId, profile);
    }
    this.results.delete(userId);
    this.announceLocal({ type: 'userSignalsChanged', userId });
  }

  /**
   * These users' stored signals changed outside the incremental path (an author's affinities
   * deleted when its consent went): their cached profiles and lists are dropped, here and on
   * every instance, and rebuilt from storage on their next request.
   */
  usersSignalsReplaced(userIds: Iterable<string>): void {
    for (const userId of new Set(userIds)) {
      this.userErasedFromMemory(userId);
      this.announceLocal({ type: 'userSignalsChanged', userId });
    }
  }

  coEngaged(change: CoEngagementChange): void {
    this.co.apply(change);
    this.announceLocal({ type: 'coEngaged', change });
  }

  userErased(userId: string): void {
    this.userErasedFromMemory(userId);
    // The user's interactions are gone from the database: the co-engagement state replays what
    // is left, and lists cached meanwhile (which it may have ranked) are dropped once it has.
    // The item model was fitted with the user's interactions: it is no longer served here, and
    // the stored one is deleted before the erasure answers; the next build leaves them out.
    this.erasures += 1;
    this.dropItemModel();
    const dropStored = this.itemModelDropper?.().catch(() => undefined);
    this.erasureRebuild = Promise.all([
      this.co.rebuild().then(() => {
        this.generation += 1;
      }),
      dropStored,
    ])
      .then(() => undefined)
      .catch(() => undefined);
    for (const listener of this.erasureListeners) listener(userId);
    this.announceLocal({ type: 'userErased', userId });
  }

  /** Called after each event this instance announces (not those applied from other instances), in the form it travels in. */
  onLocalEvent(listener: (message: RankingEventMessage) => void): void {
    this.localEventListeners.push((message) => listener(wireRankingEvent(message)));
  }

  /**
   * Applies another instance's event to this instance's memory, without announcing it again.
   * A user's changed signals drop what memory holds of the user (the database has them).
   */
  applyRemoteEvent(message: RankingEventMessage): void {
    this.applyingRemote = true;
    try {
      if (message.type === 'postsStored') this.postsStored(message.posts);
      else if (message.type === 'postsDeleted') this.postsDeleted(message.ids);
      else if (message.type === 'postCountsChanged') this.postCountsChanged(message.postId, message.counts, message.atMs);
      else if (message.type === 'userSignalsChanged') {
        this.signalSeen();
        this.userErasedFromMemory(message.userId);
      } else if (message.type === 'coEngaged') this.coEngaged(message.change);
      else this.userErased(message.userId);
    } finally {
      this.applyingRemote = false;
    }
  }

  private announceLocal(message: RankingEventMessage): void {
    if (this.applyingRemote) return;
    for (const listener of this.localEventListeners) listener(message);
  }

  /**
   * Called after each `userErased`: memory outside the state that holds users (experiment
   * enrolments, recently shown statuses) subscribes here, so one announcement reaches it all.
   */
  onUserErased(listener: (userId: string) => void): void {
    this.erasureListeners.push(listener);
  }

  async reload(): Promise<void> {
    // The clock first: under an imported history the pool is the one of its end, its newest
    // posts those created by then (the later ones are left out of every list until its clock
    // reaches them; taking the newest places, they left a replayed catalogue's newcomers a
    // fraction of its posts: bench/README.md, "A catalogue larger than the pool").
    const log: PoolEvent[] = [];
    this.reloadLogs.add(log);
    let pool: CandidateIndex;
    try {
      // (Without a history nothing to learn: the pool's read starts at once.)
      if (this.history !== undefined) await this.learnNewestInteraction();
      pool = candidatePool(await this.source(this.candidateLimits(Date.now())), this.options.index);
      for (const event of log) applyPoolEvent(pool, event);
    } finally {
      this.reloadLogs.delete(log);
    }
    this.pool = pool;
    this.poolToDate = pool;
    this.epoch += 1;
    this.generation += 1;
    this.profiles.clear();
    this.results.clear();
    this.statuses.clear();
    this.recentInteractions.clear();
    await this.co.rebuild();
  }

  /**
   * Resolves when the co-engagement rebuild the last erasure started is done: an erasure waits
   * for it before it answers. A failed rebuild (the database unreachable) leaves the state as it
   * was until the next rebuild (the next erasure, reload or start).
   */
  erasureApplied(): Promise<void> {
    return this.erasureRebuild;
  }

  /** Rebuilds the co-engagement state from the stored interactions (also done by reload and each erasure). */
  rebuildCoEngagement(): Promise<void> {
    return this.co.rebuild();
  }

  // --- Reads. ---

  /**
   * What the collaborative feature reads: the co-engagement state, and beside it the periodic
   * item–item model when one is loaded (replaced by each rebuild or load: read it per request,
   * do not keep it).
   */
  get coEngagement(): CoEngagementReader {
    const live = this.co.state;
    if (this.itemModel === undefined) return live;
    if (this.modelled?.live !== live || this.modelled.model !== this.itemModel.model)
      this.modelled = new ModelledCoEngagement(this.itemModel.model, live);
    return this.modelled;
  }

  /** The item model served (its stored id), if any. */
  get itemModelId(): string | undefined {
    return this.itemModel?.id;
  }

  /** Erasures seen (this instance's and the others'): a build that read before one is not stored. */
  get erasuresSeen(): number {
    return this.erasures;
  }

  /** Serves a loaded item model (cached lists are dropped). */
  setItemModel(id: string, model: ItemModel): void {
    this.itemModel = { id, model };
    this.modelled = undefined;
    this.generation += 1;
  }

  /** Stops serving the item model (the co-engagement state alone again). */
  dropItemModel(): void {
    if (this.itemModel === undefined) return;
    this.itemModel = undefined;
    this.modelled = undefined;
    this.generation += 1;
  }

  /** How an erasure deletes the stored item model (the item model's feature attaches it). */
  attachItemModelDropper(drop: () => Promise<void>): void {
    this.itemModelDropper = drop;
  }

  /** How many of a user's most recent other posts each interaction is paired with (the writers' rule). */
  get coEngagementWindow(): number {
    return this.options.coEngagement.window;
  }

  /** The candidate pool (replaced by `reload`: read it per request, do not keep it). */
  /**
   * The instant a list is scored at (docs/ranking.md, "The ranking's clock"). The interaction
   * that happened last tells: received about when it happened (live traffic, or a history
   * replayed with its times shifted to now), the service ranks at now; received more than a day
   * after it happened, the service holds an imported history (an archive, an evaluator's
   * replay of a public data set) and ranks as of that history's end — plus the time since it
   * was received — as `recsvc eval` and the fit score it, where posts created later did not
   * exist yet. At the wall clock instead, months later, every recency underflows to 0 and
   * every affinity decays to neutral. The first live interaction brings the clock back to now.
   * Live, a post dated more than the clocks' skew (5 minutes) ahead is left out until its time.
   */
  rankingInstant(nowMs: number): RankingInstant {
    const newest = this.newestInteraction;
    const lag = newest === undefined ? 0 : newest.receivedAtMs - newest.atMs;
    if (lag > IMPORTED_HISTORY_LAG_MS) return { atMs: nowMs - lag, createdNotAfterMs: nowMs - lag };
    // Live: a post dated ahead of now by more than clocks disagree (a remote instance's broken clock) waits for its time.
    return { atMs: nowMs, createdNotAfterMs: nowMs + INTERACTION_FUTURE_SKEW_MS };
  }

  /**
   * Under an imported history (see `rankingInstant`), the newest creation time a list may hold
   * now (its end, plus the time since it was received); live, undefined.
   */
  importedHistoryEnd(nowMs: number): number | undefined {
    const instant = this.rankingInstant(nowMs);
    return instant.atMs < nowMs ? instant.createdNotAfterMs : undefined;
  }

  /** What the pool is read from now: its bounds, and under an imported history posts created by its end (a reload, the pool's refresh). */
  candidateLimits(nowMs: number): CandidateLimits {
    const { maxRecent, maxPopular } = this.options.index;
    const end = this.importedHistoryEnd(nowMs);
    return { recent: maxRecent, popular: maxPopular, ...(end === undefined ? {} : { createdNotAfterMs: end }) };
  }

  /**
   * Reloads when the service holds an imported history and its pool holds posts created after
   * that history's end (posts stored before the history came in take the pool's newest places
   * though no list may hold them yet): the pool is then built as of the end (`reload`), its
   * counters dated and the community's pace read again. Run after an import (the fit's trigger,
   * before the item model and the fit). Returns whether it reloaded.
   */
  async reloadForImportedHistory(nowMs = Date.now()): Promise<boolean> {
    // The stored newest interaction (another instance may have received the import).
    await this.learnNewestInteraction();
    const end = this.importedHistoryEnd(nowMs);
    const historyAtMs = this.newestInteraction?.atMs;
    // Once per history: posts stored after it (no list holds them before the clock) do not reload it again and again.
    if (end === undefined || historyAtMs === this.reloadedForHistoryAtMs) return false;
    const later = this.pool.slots.some(
      (slot) => slot !== undefined && !this.pool.isCollaborative(slot.post.id) && slot.post.createdAtMs > end,
    );
    if (!later) return false;
    await this.reload();
    this.reloadedForHistoryAtMs = historyAtMs;
    return true;
  }

  /** The newest stored interaction's instant and receipt (the ranking's clock), before a reload reads the pool. */
  private async learnNewestInteraction(): Promise<void> {
    if (this.history === undefined) return;
    const [newest] = await this.history(1);
    if (newest?.atMs !== undefined)
      this.interactionSeen(newest.atMs, newest.id === undefined ? newest.atMs : receivedAtOf(newest.id, newest.atMs));
  }

  private interactionSeen(atMs: number, receivedAtMs: number): void {
    if (this.newestInteraction === undefined || atMs > this.newestInteraction.atMs) this.newestInteraction = { atMs, receivedAtMs };
  }

  get index(): CandidateIndex {
    return this.pool;
  }

  /**
   * A post's TF-IDF vector with the pool's idf now: what a writer adds to a user's stored
   * interest vector (and announces with the signal, so a profile in memory adds the same).
   */
  termVector(post: Pick<RankablePost, 'text' | 'tags'>): Map<string, number> {
    return this.pool.termVector(post);
  }

  /**
   * The user's interest vector as last stored, when memory knows it — from a write not yet
   * announced, else the cached profile's (equal to the stored one, because both add the
   * same terms in the same order) — to read, never to change; undefined when only the
   * database knows it. With several processes writing one database (PostgreSQL) memory may be
   * behind their writes, so the writers read the database instead
   * (BatchedTransactionRunner.sharedAcrossProcesses).
   */
  writtenInterest(userId: string): DecayedSums | undefined {
    const pending = this.unannounced.get(userId);
    if (pending !== undefined) return interestVector(pending);
    return this.profiles.peek(userId)?.interest;
  }

  /** A write stored this interest vector: later writes build on it; profiles loaded meanwhile are not cached. */
  interestWritten(userId: string, interest: StoredDecayedSums): void {
    this.unannounced.set(userId, interest);
    this.bumpUser(userId);
  }

  /**
   * The write that stored `interest` was announced (call after `userSignalsChanged`) or
   * failed: later writes read the profile or the database again. A failed write also drops
   * what memory holds of the user, which may have counted on it.
   */
  interestSettled(userId: string, interest: StoredDecayedSums, failed = false): void {
    if (this.unannounced.get(userId) === interest) this.unannounced.delete(userId);
    if (failed) this.userErasedFromMemory(userId);
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
    if (this.userVersion(profile.userId) !== loadedAtVersion || this.unannounced.has(profile.userId)) return;
    this.profiles.set(profile.userId, profile);
  }

  // --- The default ranking (users outside experiments): moved by the ranking_fit agent or an operator. ---

  /**
   * The default ranking's point (src/ranking/ranking-default.ts): until a fit or an operator
   * moves it, the starting point the community's pace names (`startingRankingDefault`: a
   * catalogue's, or the shipped one).
   */
  get rankingDefault(): RankingDefault {
    this.refreshDefault();
    return this.defaultPoint;
  }

  /** The config and knobs the default ranking ranks with (one object until the point changes). */
  get defaultRanking(): { readonly config: AlgorithmConfig; readonly options: RankingKnobs } {
    this.refreshDefault();
    return this.defaultConfig;
  }

  /**
   * Moves the default ranking (undefined: back to the starting point the pace names); a change
   * drops the cached lists (they were ranked the old way). Returns whether it changed.
   */
  setRankingDefault(point: RankingDefault | undefined): boolean {
    this.chosenPoint = point === undefined ? undefined : completeRankingDefault(point);
    return this.refreshDefault();
  }

  /** Brings the default in effect up to the chosen point, or the pace's starting point (it moves as the pace does). */
  private refreshDefault(): boolean {
    const point = this.chosenPoint ?? startingRankingDefault(this.pool.pace);
    if (point === this.defaultPoint) return false;
    const changed = !sameRankingDefault(this.defaultPoint, point);
    this.defaultPoint = point;
    if (!changed) return false;
    this.defaultConfig = rankingOf(point);
    this.generation += 1;
    return true;
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
    if (entry === undefined || entry.generation !== this.generation) entry = { generation: this.generation, lists: new Map() };
    if (entry.lists.size >= LISTS_PER_USER) entry.lists.clear();
    entry.lists.set(key, { expiresAtMs: nowMs + this.options.resultTtlMs, items });
    // Stored (again) so that the cache counts the entry's new size (setting the same object would not).
    this.results.delete(userId);
    this.results.set(userId, entry);
  }

  /**
   * Keeps `value` (`bytes` of it) with the user's cached list `items` (under `key`), in the
   * list's own entry: counted in the lists' byte bound (`resultMaxBytes`), dropped with the list
   * (its expiry, the user's events, eviction). Nothing is kept when that list is no longer cached.
   */
  keepWithList(userId: string, key: string, items: RankedItem[], value: object, bytes: number): void {
    const entry = this.results.peek(userId);
    const list = entry?.lists.get(key);
    if (entry === undefined || list === undefined || list.items !== items) return;
    list.kept = { value, bytes };
    // Stored again so that the cache counts the entry's new size.
    this.results.delete(userId);
    this.results.set(userId, entry);
  }

  /** What was kept with the user's cached list `items` (under `key`), if that list is still the one cached. */
  keptWithList(userId: string, key: string, items: RankedItem[]): object | undefined {
    const list = this.results.peek(userId)?.lists.get(key);
    return list !== undefined && list.items === items ? list.kept?.value : undefined;
  }

  /** The kept values (keepWithList) and their bytes, for the kept_pages gauge (a walk over the cached lists). */
  private keptSize(): { entries: number; bytes: number } {
    let entries = 0;
    let bytes = 0;
    for (const entry of this.results.values()) {
      for (const list of entry.lists.values()) {
        if (list.kept === undefined) continue;
        entries += 1;
        bytes += list.kept.bytes;
      }
    }
    return { entries, bytes };
  }

  /** Every cache's size (the pool's vocabulary and authors included), for the gauges. */
  cacheSizes(): CacheSize[] {
    const statuses = this.statuses.sizes();
    return [
      { cache: 'candidate_pool', entries: this.pool.size },
      { cache: 'collaborative_candidates', entries: this.pool.collaborativeSize },
      { cache: 'co_engagement', entries: this.co.state.size, bytes: this.co.state.estimatedBytes() },
      { cache: 'recent_interactions', entries: this.recentInteractions.size, bytes: this.recentInteractions.estimatedBytes },
      { cache: 'vocabulary', entries: this.pool.vocabulary.liveTerms },
      { cache: 'profiles', entries: this.profiles.size, bytes: this.profiles.calculatedSize },
      { cache: 'results', entries: this.results.size, bytes: this.results.calculatedSize },
      { cache: 'kept_pages', ...this.keptSize() },
      { cache: 'statuses', entries: statuses.statuses },
      { cache: 'status_json', entries: statuses.json, bytes: statuses.jsonChars },
    ];
  }

  /** Users' signals announced here (this instance's and the others'): what the ranking fit's trigger watches. */
  get signalsSeen(): number {
    return this.signals;
  }

  /** When the last of them came (epoch ms; 0: none yet). */
  get lastSignalAtMs(): number {
    return this.lastSignalMs;
  }

  private signalSeen(): void {
    this.signals += 1;
    this.lastSignalMs = Date.now();
  }

  private userErasedFromMemory(userId: string): void {
    this.recentInteractions.forget(userId);
    this.bumpUser(userId);
    this.profiles.delete(userId);
    this.results.delete(userId);
  }

  private bumpUser(userId: string): void {
    this.userVersions.set(userId, (this.userVersions.get(userId) ?? 0) + 1);
  }
}

/** What the writers of signals use of the state: events, the pool's idf, and the interest vectors memory knows. */
export type SignalWriterState = RankingEvents &
  TermWeigher &
  Pick<RankingState, 'writtenInterest' | 'interestWritten' | 'interestSettled' | 'coEngagementWindow' | 'recentInteractions'>;

/** A state with its candidate pool loaded from `source`. */
export async function loadRankingState(
  source: CandidateSource,
  options: Partial<RankingStateOptions> = {},
  history?: CoEngagementSource,
): Promise<RankingState> {
  const state = new RankingState(source, options, history);
  await state.reload();
  return state;
}
