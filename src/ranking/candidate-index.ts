/**
 * The candidate pool, kept in memory by the server and updated on every write, holding
 * per post what does not depend on the user (TF-IDF vector, engagement, tags), so that
 * ranking one user is a single pass over a few thousand precomputed slots.
 */
import { engagementLog } from './features.js';
import type { RankablePost } from './ranking.types.js';
import { tagTerm, termCounts } from './text.js';
import { computeTrending, type TrendingTag } from './trending.js';
import { Vocabulary, type SparseVector } from './vocabulary.js';

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
}

/** The bounds used when none are given: a pool that ranks in well under a millisecond. */
export const DEFAULT_CANDIDATE_INDEX_OPTIONS: CandidateIndexOptions = {
  maxRecent: 2000,
  maxPopular: 500,
  trendWindowHours: 24,
  trendingTopK: 10,
  minTrendCount: 3,
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
  ) {}
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
  private live = 0;
  private maxEngagement = 0;
  private maxEngagementStale = false;
  private changesSinceWeighing = 0;
  private version = 0;
  private trendCache: { version: number; atMs: number; tags: TrendingTag[]; score: Float64Array } | undefined;

  constructor(posts: Iterable<RankablePost> = [], options: Partial<CandidateIndexOptions> = {}) {
    this.options = { ...DEFAULT_CANDIDATE_INDEX_OPTIONS, ...options };
    for (const post of this.selectKept([...posts])) this.insert(post);
    this.reweighAll();
  }

  /** Number of posts in the pool. */
  get size(): number {
    return this.live;
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
    if (this.slotById.has(post.id)) this.remove(post.id);
    this.insert(post);
    this.trimIfOver(1.1);
  }

  /** Sets a pooled post's counts; returns false when the post is not in the pool. */
  updateCounts(postId: string, counts: Pick<RankablePost, 'favourites' | 'reblogs' | 'replies'>): boolean {
    const slot = this.slotById.get(postId);
    if (slot === undefined) return false;
    slot.post = pooledPost(slot.post, counts);
    const before = slot.engagement;
    slot.engagement = engagementLog(counts);
    if (slot.engagement >= this.maxEngagement) this.maxEngagement = slot.engagement;
    else if (before >= this.maxEngagement) this.maxEngagementStale = true;
    return true;
  }

  /** Removes a post from the pool; returns false when it was not there. */
  remove(postId: string): boolean {
    const slot = this.slotById.get(postId);
    if (slot === undefined) return false;
    this.slotById.delete(postId);
    const original = slot.post.reblogOfId;
    if (original !== null) {
      const group = this.reblogSlots.get(original);
      group?.delete(slot);
      if (group?.size === 0) this.reblogSlots.delete(original);
    }
    this.vocabulary.count(slot.termIds, -1);
    this.releaseAuthor(slot.post.accountId, slot.authorIdx);
    this.slots[slot.index] = undefined;
    this.free.push(slot.index);
    this.live -= 1;
    if (slot.engagement >= this.maxEngagement) this.maxEngagementStale = true;
    this.changed();
    return true;
  }

  /** The largest raw engagement in the pool (the normaliser of `content_engagement`). */
  engagementMax(): number {
    if (this.maxEngagementStale) {
      this.maxEngagement = 0;
      for (const slot of this.slots) if (slot !== undefined && slot.engagement > this.maxEngagement) this.maxEngagement = slot.engagement;
      this.maxEngagementStale = false;
    }
    return this.maxEngagement;
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

  private insert(given: RankablePost): void {
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
    this.vocabulary.count(termIds, 1);
    const vector = this.vocabulary.weigh(termIds, termTf);
    const slot = new Slot(post, index, authorIdx, termIds, termTf, vector, tagIds, language, engagementLog(post));
    this.slots[index] = slot;
    this.slotById.set(post.id, slot);
    if (post.reblogOfId !== null) {
      const group = this.reblogSlots.get(post.reblogOfId) ?? new Set<Slot>();
      group.add(slot);
      this.reblogSlots.set(post.reblogOfId, group);
    }
    this.live += 1;
    if (slot.engagement > this.maxEngagement) this.maxEngagement = slot.engagement;
    this.changed();
  }

  private releaseAuthor(accountId: string, authorIdx: number): void {
    const left = (this.authorPosts[authorIdx] ?? 1) - 1;
    this.authorPosts[authorIdx] = left;
    if (left > 0) return;
    this.authorIndex.delete(accountId);
    this.freeAuthors.push(authorIdx);
  }

  private changed(): void {
    this.version += 1;
    this.changesSinceWeighing += 1;
  }

  private reweighAll(): void {
    for (const slot of this.slots) if (slot !== undefined) slot.vector = this.vocabulary.weigh(slot.termIds, slot.termTf);
    this.changesSinceWeighing = 0;
  }

  /**
   * Evicts in batches once the pool exceeds its bound by `slack`: keeps the `maxRecent`
   * newest posts and, of the rest, the `maxPopular` most engaging ones.
   */
  private trimIfOver(slack: number): void {
    const { maxRecent, maxPopular } = this.options;
    if (this.live <= (maxRecent + maxPopular) * slack) return;
    const kept = new Set(this.selectKept(this.slots.flatMap((s) => (s === undefined ? [] : [s.post]))));
    for (const slot of this.slots) if (slot !== undefined && !kept.has(slot.post)) this.remove(slot.post.id);
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
    const tags = computeTrending(this.slots, this.vocabulary, nowMs, trendWindowHours, trendingTopK, minTrendCount);
    const top = tags[0]?.count ?? 1;
    const score = new Float64Array(this.vocabulary.size);
    for (const t of tags) score[t.termId] = t.count / top;
    this.trendCache = { version: this.version, atMs: nowMs, tags, score };
    return this.trendCache;
  }
}

/**
 * The pool's copy of a post, always built by this one object literal. The ranking loop reads
 * every pooled post's fields: objects made by a spread (`{ ...post, visibility }`, or
 * `{ ...post, favourites }` on a count change) are many times slower to read there than
 * literals of one shape (measured: ~20x in a loop over 2,400 posts), which cost the first
 * request of a user about 40% more CPU when the pool held such objects.
 */
function pooledPost(post: RankablePost, counts: Pick<RankablePost, 'favourites' | 'reblogs' | 'replies'>): RankablePost {
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
    reblogOfId: post.reblogOfId,
  };
}
