/**
 * The candidate pool, kept in memory by the server and updated on every write, holding
 * per post what does not depend on the user (TF-IDF vector, engagement, tags), so that
 * ranking one user is a single pass over a few thousand precomputed slots.
 */
import { ALL_TIME, EngagementPace, PACE_HALF_LIVES_HOURS } from './engagement-pace.js';
import { ENGAGEMENT_WEIGHTS, engagementLog, engagementScore, positivesCount, positivesLog } from './features.js';
import type { InteractionAction, PoolCounts, RankablePost } from './ranking.types.js';
import { tagTerm, termCounts } from './text.js';
import { computeTrending, type TrendingTag } from './trending.js';
import { MAX_VECTOR_TERMS, Vocabulary, type SparseVector } from './vocabulary.js';

/** Bounds of the pool and the trending window. */
export interface CandidateIndexOptions {
  /** The most recent posts kept (default 2,000). */
  readonly maxRecent: number;
  /** Beyond those, the most engaging older posts kept (default 500). */
  readonly maxPopular: number;
  /** A tag trends by the posts carrying it in this many recent hours (default 24). */
  readonly trendWindowHours: number;
  /** At most this many trending tags (default 10). */
  readonly trendingTopK: number;
  /** A tag needs at least this many posts in the window to trend (default 3). */
  readonly minTrendCount: number;
  /**
   * Collaborative candidates kept beyond those (default 1,000): posts co-engaged with what
   * users liked, added for them from outside the pool (`addCollaborative`).
   */
  readonly maxCollaborative: number;
}

/** The bounds used when none are given: a pool that ranks in well under a millisecond. */
export const DEFAULT_CANDIDATE_INDEX_OPTIONS: CandidateIndexOptions = {
  maxRecent: 2000,
  maxPopular: 500,
  trendWindowHours: 24,
  trendingTopK: 10,
  minTrendCount: 3,
  maxCollaborative: 1000,
};

/** One post's precomputed data. Read by the ranker; changed only by the index. */
export class Slot {
  constructor(
    public post: RankablePost,
    readonly index: number,
    readonly authorIdx: number,
    readonly termIds: Int32Array,
    readonly termTf: Float64Array,
    /** Re-weighed as the idf drifts (see `refreshVectors`). */
    public vector: SparseVector,
    readonly tagIds: Int32Array,
    readonly language: string | null,
    public engagement: number,
    /** log1p(positives), as `PoolColumns.positives`. */
    public positives: number,
  ) {}
}

/** Bits of `PoolColumns.flags`: 0 marks a hole. */
export const SLOT_LIVE = 1;
export const SLOT_REBLOG = 2;
export const SLOT_TAGGED = 4;
/** The post is sensitive: left out for users who do not allow sensitive posts. */
export const SLOT_SENSITIVE = 8;
/**
 * A collaborative candidate (`addCollaborative`): ranked only for users whose collaborative
 * feature is above 0 for it, and counted in no normaliser of the pool (document
 * frequencies, the engagement maximum, trends, its size), so rankings without the
 * collaborative feature are those of the pool without it.
 */
export const SLOT_EXTRA = 16;

/**
 * The fields the ranking loop reads, one typed array per field indexed by slot (a struct of
 * arrays), kept in step with the slots by the index: reading numbers from a few arrays in
 * order costs a fraction of following slot -> post -> field for 2,400 posts per request.
 * The arrays are replaced when they grow: read them from here at the start of a pass.
 */
export class PoolColumns {
  capacity = 0;
  /** SLOT_LIVE | SLOT_REBLOG | SLOT_TAGGED | SLOT_SENSITIVE, 0 for a hole. */
  flags = new Uint8Array(0);
  createdAt = new Float64Array(0);
  /** log1p(engagement score), as `Slot.engagement`. */
  engagement = new Float64Array(0);
  /** log1p(each positive counted once, bookmarks included: `positivesLog`), as `Slot.positives`. */
  positives = new Float64Array(0);
  /**
   * The engagement score decayed at each of PACE_HALF_LIVES_HOURS (slot i's rung r at
   * `i * RUNGS + r`), as a sum of weight · 2^((at − anchor)/h) over its dated engagements
   * (`CandidateIndex.decayedEngagement` reads it at an instant).
   */
  decayedEngagement = new Float64Array(0);
  /** The positives count decayed the same way. */
  decayedPositives = new Float64Array(0);
  author = new Int32Array(0);
  /** Reblog group id (`CandidateIndex.groupCapacity`): a post and its pooled reblogs share one. */
  group = new Int32Array(0);
  /** Primary language id (`CandidateIndex.languageId`), 0 when the post has none. */
  language = new Int32Array(0);
  /** The slot's vector: `vectorLength[i]` terms from `i * MAX_VECTOR_TERMS` in `vectorIds`/`vectorWeights`. */
  vectorLength = new Uint8Array(0);
  vectorIds = new Int32Array(0);
  vectorWeights = new Float64Array(0);

  /** Makes room for slot `index`, doubling. */
  ensure(index: number): void {
    if (index < this.capacity) return;
    const capacity = Math.max(256, this.capacity * 2, index + 1);
    const grow = <T extends Uint8Array | Int32Array | Float64Array>(old: T, make: (n: number) => T, n: number): T => {
      const grown = make(n);
      grown.set(old);
      return grown;
    };
    this.flags = grow(this.flags, (n) => new Uint8Array(n), capacity);
    this.createdAt = grow(this.createdAt, (n) => new Float64Array(n), capacity);
    this.engagement = grow(this.engagement, (n) => new Float64Array(n), capacity);
    this.positives = grow(this.positives, (n) => new Float64Array(n), capacity);
    this.decayedEngagement = grow(this.decayedEngagement, (n) => new Float64Array(n), capacity * RUNGS);
    this.decayedPositives = grow(this.decayedPositives, (n) => new Float64Array(n), capacity * RUNGS);
    this.author = grow(this.author, (n) => new Int32Array(n), capacity);
    this.group = grow(this.group, (n) => new Int32Array(n), capacity);
    this.language = grow(this.language, (n) => new Int32Array(n), capacity);
    this.vectorLength = grow(this.vectorLength, (n) => new Uint8Array(n), capacity);
    this.vectorIds = grow(this.vectorIds, (n) => new Int32Array(n), capacity * MAX_VECTOR_TERMS);
    this.vectorWeights = grow(this.vectorWeights, (n) => new Float64Array(n), capacity * MAX_VECTOR_TERMS);
    this.capacity = capacity;
  }

  /** Copies a slot's vector into the flat arrays. */
  setVector(index: number, vector: SparseVector): void {
    const base = index * MAX_VECTOR_TERMS;
    const n = Math.min(vector.ids.length, MAX_VECTOR_TERMS);
    for (let j = 0; j < n; j++) {
      this.vectorIds[base + j] = vector.ids[j]!;
      this.vectorWeights[base + j] = vector.weights[j]!;
    }
    this.vectorLength[index] = n;
  }
}

/**
 * recency(slot) = 2^((createdAt − nowMs)/h) for a post of the past, computed as
 * `values[slot] · 2^((refMs − nowMs)/h)` with `values[slot] = 2^((createdAt − refMs)/h)`
 * kept per slot: one multiplication per slot and request instead of one `Math.exp`.
 */
export interface RecencyTable {
  readonly halfLifeMs: number;
  refMs: number;
  values: Float64Array;
}

/**
 * The reference instant moves to the request's when they are this many half-lives apart,
 * so the request's factor stays within 2^±64 and `values · factor` is within a few ulps of
 * the direct formula (values of old posts may underflow: so does their recency).
 */
const RECENCY_REBASE_HALF_LIVES = 64;

/** Recency tables kept, one per half-life asked for (experiments rarely use more than one). */
const MAX_RECENCY_TABLES = 4;

/** Decayed sums kept per slot: one per rung of PACE_HALF_LIVES_HOURS. */
export const RUNGS = PACE_HALF_LIVES_HOURS.length;
const RUNG_MS: readonly number[] = PACE_HALF_LIVES_HOURS.map((h) => h * 3_600_000);

/**
 * The decayed sums' anchor moves forward when an engagement comes this many of the shortest
 * half-lives after it, so that 2^((at − anchor)/h) stays far from overflowing (2^600 ≈ 1e180).
 */
const DECAY_REANCHOR_HALF_LIVES = 600;

/** How long a read of the decayed engagement serves later requests when nothing was counted since. */
const DECAYED_READ_TTL_MS = 60_000;

/** Engagement and positives weight of one interaction (ENGAGEMENT_WEIGHTS; a bookmark is a positive only). */
function actionWeights(action: InteractionAction): { engagement: number; positives: number } {
  if (action === 'favorite') return { engagement: ENGAGEMENT_WEIGHTS.favourites, positives: 1 };
  if (action === 'reblog') return { engagement: ENGAGEMENT_WEIGHTS.reblogs, positives: 1 };
  return { engagement: 0, positives: 1 };
}

/** The engagement measure of the pool at one instant (`CandidateIndex.decayedEngagement`). */
export interface DecayedEngagement {
  /** log1p(decayed sum) by slot. */
  readonly values: Float64Array;
  /** The largest over the pool (collaborative candidates not counted). */
  readonly max: number;
}

/** A kept read, patched slot by slot as sums change (`patchDecayedReads`) until stale. */
interface KeptDecayedRead {
  readonly rung: number;
  readonly positives: boolean;
  readonly atMs: number;
  /** 2^((anchor − atMs)/h): what the read multiplied each sum by. */
  readonly factor: number;
  stale: boolean;
  readonly values: Float64Array;
  max: number;
}

/** Primary language subtag in lowercase, so `en-GB` matches a preference for `en`. */
export function primaryLanguage(tag: string): string {
  return tag.toLowerCase().split(/[-_]/)[0] ?? '';
}

/** In-memory candidate pool with incremental add, count update and removal. */
export class CandidateIndex {
  readonly options: CandidateIndexOptions;
  readonly vocabulary = new Vocabulary();
  /** Slots by position; holes are `undefined` and reused. */
  readonly slots: (Slot | undefined)[] = [];
  /** Author account id -> dense author index (freed and reused once the author has no pooled post). */
  readonly authorIndex = new Map<string, number>();
  /** Pooled posts per author index. */
  private readonly authorPosts: number[] = [];
  private readonly freeAuthors: number[] = [];
  private readonly slotById = new Map<string, Slot>();
  private readonly reblogSlots = new Map<string, Set<Slot>>();
  private readonly free: number[] = [];
  /** Per-slot numbers the ranking loop reads (see PoolColumns). */
  readonly columns = new PoolColumns();
  /** Primary language -> id (from 1) with the number of pooled posts in it; freed ids are reused. */
  private readonly languageIds = new Map<string, { id: number; posts: number }>();
  private readonly freeLanguages: number[] = [];
  private languageCount = 0;
  /** Reblog group (the original's id) -> dense id with its number of pooled posts; freed ids are reused. */
  private readonly groupIds = new Map<string, { id: number; posts: number }>();
  private readonly freeGroups: number[] = [];
  private groupCount = 0;
  private readonly recencyTables = new Map<number, RecencyTable>();
  /** Collaborative candidates' ids, least recently added or asked for first. */
  private readonly extras = new Map<string, true>();
  private live = 0;
  private maxEngagement = 0;
  private maxEngagementStale = false;
  private maxPositives = 0;
  private maxPositivesStale = false;
  private changesSinceWeighing = 0;
  private version = 0;
  /** The community's pace, from the dated engagements counted (`updateCounts` with an instant, `redate`). */
  readonly pace = new EngagementPace();
  /** The decayed sums' reference instant (NaN until the first post or engagement). */
  private anchorMs = NaN;
  /** The newest instant seen (a post's creation or a dated engagement): an undated count change is dated here. */
  private latestMs = -Infinity;
  private readonly decayedReads = new Map<number, KeptDecayedRead>();
  private trendCache:
    { version: number; atMs: number; tags: TrendingTag[]; score: Float64Array; bySlot: Float64Array | undefined } | undefined;

  constructor(posts: Iterable<RankablePost> = [], options: Partial<CandidateIndexOptions> = {}) {
    this.options = { ...DEFAULT_CANDIDATE_INDEX_OPTIONS, ...options };
    for (const post of this.selectKept([...posts])) this.insert(post);
    this.reweighAll();
  }

  /** Number of posts in the pool (collaborative candidates not counted). */
  get size(): number {
    return this.live;
  }

  /** Number of collaborative candidates held (see `addCollaborative`). */
  get collaborativeSize(): number {
    return this.extras.size;
  }

  /** Whether the post is held as a collaborative candidate. */
  isCollaborative(postId: string): boolean {
    return this.extras.has(postId);
  }

  /** Whether the post is held, in the pool or as a collaborative candidate. */
  has(postId: string): boolean {
    return this.slotById.has(postId);
  }

  /**
   * Holds posts from outside the pool as collaborative candidates (SLOT_EXTRA), the least
   * recently asked for dropped beyond `maxCollaborative`. Posts already held are marked as
   * asked for; a pool post stays a pool post.
   */
  addCollaborative(posts: Iterable<RankablePost>): void {
    for (const post of posts) {
      if (this.extras.has(post.id)) {
        this.extras.delete(post.id);
        this.extras.set(post.id, true);
      } else if (!this.slotById.has(post.id)) {
        this.insert(post, true);
        this.extras.set(post.id, true);
      }
    }
    for (const id of this.extras.keys()) {
      if (this.extras.size <= this.options.maxCollaborative) break;
      this.remove(id);
    }
  }

  /** One past the largest author index in use (the length dense author arrays need). */
  get authorCapacity(): number {
    return this.authorPosts.length;
  }

  /** The pooled post with this id, if any. */
  get(postId: string): RankablePost | undefined {
    return this.slotById.get(postId)?.post;
  }

  /** The slot of a pooled post (for the ranker). */
  slotOf(postId: string): Slot | undefined {
    return this.slotById.get(postId);
  }

  /** Slots of the pooled reblogs of an original post (for the ranker). */
  reblogsOf(originalId: string): ReadonlySet<Slot> | undefined {
    return this.reblogSlots.get(originalId);
  }

  /** Adds a post, or replaces the pooled post with the same id; old posts may be evicted. */
  upsert(post: RankablePost): void {
    const old = this.slotById.get(post.id);
    if (old === undefined) {
      this.insert(post);
    } else {
      // The decayed sums go on: only the change of the counts is new (dated now, as the index knows it).
      const base = old.index * RUNGS;
      const engagement = this.columns.decayedEngagement.slice(base, base + RUNGS);
      const positives = this.columns.decayedPositives.slice(base, base + RUNGS);
      const was = { engagement: engagementScore(old.post), positives: positivesCount(old.post) };
      this.remove(post.id);
      this.insert(post);
      const slot = this.slotById.get(post.id)!;
      this.columns.decayedEngagement.set(engagement, slot.index * RUNGS);
      this.columns.decayedPositives.set(positives, slot.index * RUNGS);
      this.addDecayed(
        slot.index,
        engagementScore(slot.post) - was.engagement,
        positivesCount(slot.post) - was.positives,
        this.undatedAt(slot.post),
      );
    }
    this.trimIfOver(1.1);
  }

  /**
   * Sets a pooled post's counts; returns false when the post is not in the pool. Counts
   * without `bookmarks` (a writer that does not know them) keep the pooled post's. The change
   * happened at `atMs` (an interaction's own time), which the decayed sums and the pace count;
   * without it (a drift corrected) it is dated at the newest instant the index saw.
   */
  updateCounts(postId: string, counts: PoolCounts, atMs?: number): boolean {
    const slot = this.slotById.get(postId);
    if (slot === undefined) return false;
    const next: PoolCounts = counts.bookmarks === undefined ? { ...counts, bookmarks: slot.post.bookmarks ?? 0 } : counts;
    const added = {
      engagement: engagementScore(next) - engagementScore(slot.post),
      positives: positivesCount(next) - positivesCount(slot.post),
    };
    const dated = atMs !== undefined && Number.isFinite(atMs);
    this.addDecayed(slot.index, added.engagement, added.positives, dated ? atMs : this.undatedAt(slot.post));
    if (dated && added.positives > 0) for (let k = 0; k < Math.min(added.positives, 16); k++) this.pace.add(atMs - slot.post.createdAtMs);
    slot.post = pooledPost(slot.post, next);
    const before = slot.engagement;
    const beforePositives = slot.positives;
    slot.engagement = engagementLog(next);
    slot.positives = positivesLog(next);
    this.columns.engagement[slot.index] = slot.engagement;
    this.columns.positives[slot.index] = slot.positives;
    if (this.isExtra(slot)) return true;
    if (slot.engagement >= this.maxEngagement) this.maxEngagement = slot.engagement;
    else if (before >= this.maxEngagement) this.maxEngagementStale = true;
    if (slot.positives >= this.maxPositives) this.maxPositives = slot.positives;
    else if (beforePositives >= this.maxPositives) this.maxPositivesStale = true;
    return true;
  }

  /**
   * An engagement the post's counts hold already (counted undated, at the post's creation: a
   * reload builds the pool from the stored counters) happened at `atMs`: the decayed sums move
   * it there, and the pace counts it. The server replays its newest stored interactions so
   * after a reload; the evaluation the training history.
   */
  redate(postId: string, action: InteractionAction, atMs: number): void {
    const slot = this.slotById.get(postId);
    if (slot === undefined || !Number.isFinite(atMs)) return;
    const w = actionWeights(action);
    const from = slot.post.createdAtMs;
    this.addDecayed(slot.index, -w.engagement, -w.positives, from);
    this.addDecayed(slot.index, w.engagement, w.positives, atMs);
    this.pace.add(atMs - from);
  }

  /**
   * The pool's engagement measure (the weighted score, or the positives count) decayed at rung
   * `rung` of PACE_HALF_LIVES_HOURS as of `nowMs`, log1p'd as the all-time columns are. A read
   * serves a minute of later requests (the decay scales every sum alike: a minute's drift
   * changes no order), patched slot by slot as counts change (`patchDecayedReads`), so a
   * ranking miss under writes makes no pass over the pool.
   */
  decayedEngagement(rung: number, nowMs: number, positives: boolean): DecayedEngagement {
    const key = rung * 2 + (positives ? 1 : 0);
    const kept = this.decayedReads.get(key);
    if (kept !== undefined && !kept.stale && kept.values.length >= this.slots.length && Math.abs(nowMs - kept.atMs) < DECAYED_READ_TTL_MS)
      return kept;
    const sums = positives ? this.columns.decayedPositives : this.columns.decayedEngagement;
    const factor = Number.isNaN(this.anchorMs) ? 0 : Math.pow(2, (this.anchorMs - nowMs) / RUNG_MS[rung]!);
    const { flags } = this.columns;
    const values = new Float64Array(this.columns.capacity);
    let max = 0;
    for (let i = 0; i < this.slots.length; i++) {
      const f = flags[i]!;
      if (f === 0) continue;
      const v = Math.log1p(sums[i * RUNGS + rung]! * factor);
      values[i] = v;
      if (v > max && (f & SLOT_EXTRA) === 0) max = v;
    }
    const read: KeptDecayedRead = { rung, positives, atMs: nowMs, factor, stale: false, values, max };
    this.decayedReads.set(key, read);
    return read;
  }

  /** Brings the kept reads up to date with slot `index` (a read whose maximum may have fallen goes stale: read again). */
  private patchDecayedReads(index: number): void {
    const { flags } = this.columns;
    for (const read of this.decayedReads.values()) {
      if (read.stale) continue;
      if (index >= read.values.length) {
        read.stale = true;
        continue;
      }
      const sums = read.positives ? this.columns.decayedPositives : this.columns.decayedEngagement;
      const f = flags[index]!;
      const before = read.values[index]!;
      const v = f === 0 ? 0 : Math.log1p(sums[index * RUNGS + read.rung]! * read.factor);
      read.values[index] = v;
      if (f !== 0 && (f & SLOT_EXTRA) !== 0) continue;
      if (v >= read.max && f !== 0) read.max = v;
      else if (before >= read.max) read.stale = true;
    }
  }

  /** The rung engagement is read at for a ranking's `engagementHalfLife` (ALL_TIME: the all-time columns). */
  engagementRung(halfLife: 'all-time' | 'pace' | number | undefined): number {
    if (halfLife === undefined || halfLife === 'all-time') return ALL_TIME;
    if (halfLife === 'pace') return this.pace.rung();
    let best = ALL_TIME;
    for (let r = 0; r < RUNGS; r++)
      if (
        best === ALL_TIME ||
        Math.abs(Math.log(PACE_HALF_LIVES_HOURS[r]! / halfLife)) < Math.abs(Math.log(PACE_HALF_LIVES_HOURS[best]! / halfLife))
      )
        best = r;
    return halfLife > 0 && Number.isFinite(halfLife) ? best : ALL_TIME;
  }

  /** Adds `engagement` and `positives` (either may be negative; sums stay ≥ 0) dated `atMs` to slot `index`'s decayed sums. */
  private addDecayed(index: number, engagement: number, positives: number, atMs: number): void {
    if ((engagement === 0 && positives === 0) || !Number.isFinite(atMs)) return;
    this.noteInstant(atMs);
    const { decayedEngagement, decayedPositives } = this.columns;
    const base = index * RUNGS;
    for (let r = 0; r < RUNGS; r++) {
      const weight = Math.pow(2, (atMs - this.anchorMs) / RUNG_MS[r]!);
      const e = decayedEngagement[base + r]! + engagement * weight;
      const p = decayedPositives[base + r]! + positives * weight;
      decayedEngagement[base + r] = e > 0 ? e : 0;
      decayedPositives[base + r] = p > 0 ? p : 0;
    }
    this.patchDecayedReads(index);
  }

  /** When an undated count change happened: the newest instant seen, never before the post. */
  private undatedAt(post: RankablePost): number {
    return Number.isFinite(this.latestMs) ? Math.max(this.latestMs, post.createdAtMs) : post.createdAtMs;
  }

  /** Moves the clock of the decayed sums: the newest instant, and the anchor when far behind. */
  private noteInstant(atMs: number): void {
    if (atMs > this.latestMs) this.latestMs = atMs;
    if (Number.isNaN(this.anchorMs)) {
      this.anchorMs = atMs;
      for (const read of this.decayedReads.values()) read.stale = true;
      return;
    }
    if (atMs - this.anchorMs <= DECAY_REANCHOR_HALF_LIVES * RUNG_MS[0]!) return;
    // Each kept read multiplied the sums by a factor of the old anchor.
    for (const read of this.decayedReads.values()) read.stale = true;
    const { decayedEngagement, decayedPositives } = this.columns;
    for (let r = 0; r < RUNGS; r++) {
      const scale = Math.pow(2, (this.anchorMs - atMs) / RUNG_MS[r]!);
      for (let i = r; i < decayedEngagement.length; i += RUNGS) {
        decayedEngagement[i] = decayedEngagement[i]! * scale;
        decayedPositives[i] = decayedPositives[i]! * scale;
      }
    }
    this.anchorMs = atMs;
  }

  /** Removes a post from the pool; returns false when it was not there. */
  remove(postId: string): boolean {
    const slot = this.slotById.get(postId);
    if (slot === undefined) return false;
    const extra = this.isExtra(slot);
    this.slotById.delete(postId);
    const original = slot.post.reblogOfId;
    if (original !== null) {
      const group = this.reblogSlots.get(original);
      group?.delete(slot);
      if (group?.size === 0) this.reblogSlots.delete(original);
    }
    if (extra) this.vocabulary.hold(slot.termIds, -1);
    else this.vocabulary.count(slot.termIds, -1);
    this.releaseAuthor(slot.post.accountId, slot.authorIdx);
    if (slot.language !== null) release(this.languageIds, this.freeLanguages, slot.language);
    release(this.groupIds, this.freeGroups, original ?? postId);
    this.columns.flags[slot.index] = 0;
    this.patchDecayedReads(slot.index);
    this.slots[slot.index] = undefined;
    this.free.push(slot.index);
    if (extra) {
      this.extras.delete(postId);
      return true;
    }
    this.live -= 1;
    if (slot.engagement >= this.maxEngagement) this.maxEngagementStale = true;
    if (slot.positives >= this.maxPositives) this.maxPositivesStale = true;
    this.changed();
    return true;
  }

  private isExtra(slot: Slot): boolean {
    return (this.columns.flags[slot.index]! & SLOT_EXTRA) !== 0;
  }

  /** The largest raw engagement in the pool (the normaliser of `content_engagement`). */
  engagementMax(): number {
    if (this.maxEngagementStale) {
      this.maxEngagement = 0;
      for (const slot of this.slots) {
        if (slot !== undefined && slot.engagement > this.maxEngagement && !this.isExtra(slot)) this.maxEngagement = slot.engagement;
      }
      this.maxEngagementStale = false;
    }
    return this.maxEngagement;
  }

  /** The largest positives count (log1p) in the pool: the normaliser of the cold start's `positives` measure. */
  positivesMax(): number {
    if (this.maxPositivesStale) {
      this.maxPositives = 0;
      for (const slot of this.slots) {
        if (slot !== undefined && slot.positives > this.maxPositives && !this.isExtra(slot)) this.maxPositives = slot.positives;
      }
      this.maxPositivesStale = false;
    }
    return this.maxPositives;
  }

  /**
   * Re-weighs every vector once enough posts came or went for the idf to drift (10% of
   * the pool): new posts are weighed on arrival, so this keeps the work amortised O(1).
   */
  refreshVectors(): void {
    if (this.changesSinceWeighing > Math.max(32, this.live * 0.1)) this.reweighAll();
  }

  /** Trending tags at `nowMs`, recomputed at most once a minute or after the pool changed. */
  trending(nowMs: number): readonly TrendingTag[] {
    return this.trendState(nowMs).tags;
  }

  /** Trend score in [0, 1] by tag term id at `nowMs` (0 or past the end when not trending). */
  trendScores(nowMs: number): Float64Array {
    return this.trendState(nowMs).score;
  }

  /**
   * Best trend score of each slot's tags at `nowMs` (by slot index, 0 without a trending
   * tag), from the same cached state as `trendScores`.
   */
  slotTrendScores(nowMs: number): Float64Array {
    const state = this.trendState(nowMs);
    if (state.bySlot === undefined) {
      const bySlot = new Float64Array(this.slots.length);
      for (const slot of this.slots) {
        if (slot === undefined || this.isExtra(slot)) continue;
        let best = 0;
        for (let j = 0; j < slot.tagIds.length; j++) {
          const t = state.score[slot.tagIds[j]!] ?? 0;
          if (t > best) best = t;
        }
        bySlot[slot.index] = best;
      }
      state.bySlot = bySlot;
    }
    return state.bySlot;
  }

  /** The id of a primary language in `columns.language` (from 1), or undefined when no pooled post has it. */
  languageId(language: string): number | undefined {
    return this.languageIds.get(language)?.id;
  }

  /** One past the largest language id in use (the length dense language arrays need). */
  get languageCapacity(): number {
    return this.languageCount + 1;
  }

  /** One past the largest reblog group id in use (the length dense group arrays need). */
  get groupCapacity(): number {
    return this.groupCount;
  }

  /**
   * The recency table for a half-life (hours > 0, finite), its reference instant within
   * RECENCY_REBASE_HALF_LIVES half-lives of `nowMs`: recency of slot i at `nowMs` is 1 for
   * a post not older than `nowMs`, else `values[i] · 2^((refMs − nowMs)/halfLifeMs)`.
   */
  recencyTable(halfLifeHours: number, nowMs: number): RecencyTable {
    let table = this.recencyTables.get(halfLifeHours);
    if (table === undefined) {
      if (this.recencyTables.size >= MAX_RECENCY_TABLES) this.recencyTables.clear();
      table = { halfLifeMs: halfLifeHours * 3_600_000, refMs: nowMs, values: new Float64Array(this.columns.capacity) };
      this.recencyTables.set(halfLifeHours, table);
      this.fillRecency(table);
    } else if (Math.abs(nowMs - table.refMs) > RECENCY_REBASE_HALF_LIVES * table.halfLifeMs) {
      table.refMs = nowMs;
      this.fillRecency(table);
    }
    return table;
  }

  /** L2-normalised TF-IDF vector of any post (pooled or not) with the pool's idf. */
  termVector(post: Pick<RankablePost, 'text' | 'tags'>): Map<string, number> {
    const counts = termCounts(post.text, post.tags);
    const vector = new Map<string, number>();
    let norm = 0;
    for (const [term, tf] of counts) {
      const id = this.vocabulary.find(term);
      const w = tf * (id === undefined ? Math.log(this.vocabulary.docCount + 1) + 1 : this.vocabulary.idf(id));
      vector.set(term, w);
      norm += w * w;
    }
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (const [term, w] of vector) vector.set(term, w * inv);
    return vector;
  }

  private insert(given: RankablePost, extra = false): void {
    const post = pooledPost(given, given);
    const counts = termCounts(post.text, post.tags);
    const termIds = new Int32Array(counts.size);
    const termTf = new Float64Array(counts.size);
    let i = 0;
    for (const [term, tf] of counts) {
      termIds[i] = this.vocabulary.intern(term);
      termTf[i++] = tf;
    }
    const tagIds = Int32Array.from(new Set(post.tags), (tag) => this.vocabulary.intern(tagTerm(tag)));
    let authorIdx = this.authorIndex.get(post.accountId);
    if (authorIdx === undefined) {
      authorIdx = this.freeAuthors.pop() ?? this.authorPosts.length;
      this.authorIndex.set(post.accountId, authorIdx);
      this.authorPosts[authorIdx] = 0;
    }
    this.authorPosts[authorIdx] = (this.authorPosts[authorIdx] ?? 0) + 1;
    const index = this.free.pop() ?? this.slots.length;
    const language = post.language === null ? null : primaryLanguage(post.language);
    if (extra) this.vocabulary.hold(termIds, 1);
    else this.vocabulary.count(termIds, 1);
    const vector = this.vocabulary.weigh(termIds, termTf);
    const slot = new Slot(post, index, authorIdx, termIds, termTf, vector, tagIds, language, engagementLog(post), positivesLog(post));
    this.slots[index] = slot;
    const columns = this.columns;
    if (index >= columns.capacity) this.growColumns(index);
    columns.flags[index] =
      SLOT_LIVE |
      (post.reblogOfId !== null ? SLOT_REBLOG : 0) |
      (tagIds.length > 0 ? SLOT_TAGGED : 0) |
      (post.sensitive === true ? SLOT_SENSITIVE : 0) |
      (extra ? SLOT_EXTRA : 0);
    columns.createdAt[index] = post.createdAtMs;
    columns.engagement[index] = slot.engagement;
    columns.positives[index] = slot.positives;
    columns.decayedEngagement.fill(0, index * RUNGS, index * RUNGS + RUNGS);
    columns.decayedPositives.fill(0, index * RUNGS, index * RUNGS + RUNGS);
    // Its counts so far are undated: at its creation (`redate` moves those it learns the time of).
    this.addDecayed(index, engagementScore(post), positivesCount(post), post.createdAtMs);
    this.patchDecayedReads(index);
    columns.author[index] = authorIdx;
    columns.language[index] = language === null ? 0 : hold(this.languageIds, this.freeLanguages, language, () => ++this.languageCount);
    columns.group[index] = hold(this.groupIds, this.freeGroups, post.reblogOfId ?? post.id, () => this.groupCount++);
    columns.setVector(index, vector);
    for (const table of this.recencyTables.values()) table.values[index] = Math.pow(2, (post.createdAtMs - table.refMs) / table.halfLifeMs);
    this.slotById.set(post.id, slot);
    if (post.reblogOfId !== null) {
      const group = this.reblogSlots.get(post.reblogOfId) ?? new Set<Slot>();
      group.add(slot);
      this.reblogSlots.set(post.reblogOfId, group);
    }
    if (extra) return;
    this.live += 1;
    if (slot.engagement > this.maxEngagement) this.maxEngagement = slot.engagement;
    if (slot.positives > this.maxPositives) this.maxPositives = slot.positives;
    this.changed();
  }

  private releaseAuthor(accountId: string, authorIdx: number): void {
    const left = (this.authorPosts[authorIdx] ?? 1) - 1;
    this.authorPosts[authorIdx] = left;
    if (left > 0) return;
    this.authorIndex.delete(accountId);
    this.freeAuthors.push(authorIdx);
  }

  private growColumns(index: number): void {
    this.columns.ensure(index);
    for (const table of this.recencyTables.values()) {
      const grown = new Float64Array(this.columns.capacity);
      grown.set(table.values);
      table.values = grown;
    }
  }

  private fillRecency(table: RecencyTable): void {
    if (table.values.length < this.columns.capacity) table.values = new Float64Array(this.columns.capacity);
    const { flags, createdAt } = this.columns;
    for (let i = 0; i < this.slots.length; i++) {
      if (flags[i] !== 0) table.values[i] = Math.pow(2, (createdAt[i]! - table.refMs) / table.halfLifeMs);
    }
  }

  private changed(): void {
    this.version += 1;
    this.changesSinceWeighing += 1;
  }

  private reweighAll(): void {
    for (const slot of this.slots) {
      if (slot === undefined) continue;
      slot.vector = this.vocabulary.weigh(slot.termIds, slot.termTf);
      this.columns.setVector(slot.index, slot.vector);
    }
    this.changesSinceWeighing = 0;
  }

  /**
   * Evicts in batches once the pool exceeds its bound by `slack`: keeps the `maxRecent`
   * newest posts and, of the rest, the `maxPopular` most engaging ones.
   */
  private trimIfOver(slack: number): void {
    const { maxRecent, maxPopular } = this.options;
    if (this.live <= (maxRecent + maxPopular) * slack) return;
    const pooled = this.slots.filter((s): s is Slot => s !== undefined && !this.isExtra(s));
    const kept = new Set(this.selectKept(pooled.map((s) => s.post)));
    for (const slot of pooled) if (!kept.has(slot.post)) this.remove(slot.post.id);
  }

  /** The posts the pool keeps: the `maxRecent` newest, then the `maxPopular` most engaging. */
  private selectKept(posts: RankablePost[]): RankablePost[] {
    const { maxRecent, maxPopular } = this.options;
    if (posts.length <= maxRecent + maxPopular) return posts;
    posts.sort((a, b) => b.createdAtMs - a.createdAtMs);
    const older = posts.slice(maxRecent).sort((a, b) => engagementLog(b) - engagementLog(a));
    return [...posts.slice(0, maxRecent), ...older.slice(0, maxPopular)];
  }

  private trendState(nowMs: number): NonNullable<CandidateIndex['trendCache']> {
    const cached = this.trendCache;
    if (cached !== undefined && cached.version === this.version && nowMs >= cached.atMs && nowMs - cached.atMs < 60_000) {
      return cached;
    }
    const { trendWindowHours, trendingTopK, minTrendCount } = this.options;
    const slots = this.extras.size === 0 ? this.slots : this.slots.map((s) => (s === undefined || this.isExtra(s) ? undefined : s));
    const tags = computeTrending(slots, this.vocabulary, nowMs, trendWindowHours, trendingTopK, minTrendCount);
    const top = tags[0]?.count ?? 1;
    const score = new Float64Array(this.vocabulary.size);
    for (const t of tags) score[t.termId] = t.count / top;
    this.trendCache = { version: this.version, atMs: nowMs, tags, score, bySlot: undefined };
    return this.trendCache;
  }
}

/** Counts one more post under `key`'s dense id (a freed one, or `next()`), returning the id. */
function hold(ids: Map<string, { id: number; posts: number }>, free: number[], key: string, next: () => number): number {
  let entry = ids.get(key);
  if (entry === undefined) {
    entry = { id: free.pop() ?? next(), posts: 0 };
    ids.set(key, entry);
  }
  entry.posts += 1;
  return entry.id;
}

/** Counts one post less under `key`, freeing its id with the last. */
function release(ids: Map<string, { id: number; posts: number }>, free: number[], key: string): void {
  const entry = ids.get(key);
  if (entry === undefined || --entry.posts > 0) return;
  ids.delete(key);
  free.push(entry.id);
}

/**
 * The pool's copy of a post, always built by this one object literal. The ranking loop reads
 * every pooled post's fields: objects made by a spread (`{ ...post, visibility }`, or
 * `{ ...post, favourites }` on a count change) are many times slower to read there than
 * literals of one shape (measured: ~20x in a loop over 2,400 posts), which cost the first
 * request of a user about 40% more CPU when the pool held such objects.
 */
function pooledPost(post: RankablePost, counts: PoolCounts): RankablePost {
  return {
    id: post.id,
    accountId: post.accountId,
    accountUsername: post.accountUsername,
    text: post.text,
    tags: post.tags,
    language: post.language,
    createdAtMs: post.createdAtMs,
    favourites: counts.favourites,
    reblogs: counts.reblogs,
    replies: counts.replies,
    bookmarks: counts.bookmarks ?? 0,
    reblogOfId: post.reblogOfId,
    // A post announced by an older instance has no flag: not sensitive, as it was stored.
    sensitive: post.sensitive === true,
  };
}
