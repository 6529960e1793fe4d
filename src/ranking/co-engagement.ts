/**
 * Item-to-item co-engagement, kept up to date at write time: each interaction pairs its post
 * with the same user's `window` most recent other posts, and each post keeps its strongest
 * `neighboursPerPost` neighbours with their co-engagement counts. A full list admits a
 * newcomer in place of its weakest neighbour when that one is no stronger, else the newcomer
 * wears the weakest down by its weight: neighbours that recur grow out of reach, one-off
 * pairings churn through the weakest place, and a neighbour that keeps coming displaces a
 * fading one in time. Bounded by
 * posts (least recently engaged dropped first) and by bytes, in flat typed arrays so that
 * 100,000 posts cost tens of megabytes, not hundreds (docs/ranking.md, Memory).
 *
 * The state is derivable from the stored interactions: `CoEngagementReplay` replays them in
 * time order through the same rule the writers apply live, which is how a server builds it
 * at start and rebuilds it after an erasure.
 */

/** Bounds and the pairing rule. */
export interface CoEngagementOptions {
  /** Posts whose neighbours are kept (least recently engaged dropped first). */
  readonly maxPosts: number;
  /** Neighbours kept per post. */
  readonly neighboursPerPost: number;
  /** Estimated bytes the state may hold: lowers `maxPosts` when smaller than it needs. */
  readonly maxBytes: number;
  /** An interaction is paired with the user's this many most recent other posts. */
  readonly window: number;
  /**
   * Neighbours served per post: the most similar of the kept ones (`forEachServedNeighbour`),
   * precomputed when the post's list changed, so the collaborative feature of a request reads
   * at most this many per seed post, whatever `neighboursPerPost`.
   */
  readonly servedPerPost: number;
}

/**
 * A window of 16 and 200 neighbours per post: the collaborative feature ranks like item-to-item
 * kNN only when the pairs are numerous enough and a post keeps enough of them. On the synthetic
 * catalogue (nDCG@20 of the feature alone, users with history, data seeds 1/2/3; item kNN over
 * the full matrix 0.117/0.122/0.130): window 8 × 100 neighbours 0.111/0.103/0.115; window 8
 * with unbounded lists still 0.110/0.111/0.120 (the window caps it); 16 × 100
 * 0.117/0.112/0.122; 16 × 200 0.121/0.118/0.126; 16 unbounded 0.122/0.122/0.128. At
 * 2,449 bytes a post, 64 MB holds about 27,000 posts, the most recently engaged
 * (docs/ranking.md, Memory); each interaction updates 2·16 lists of at most 200.
 */
export const DEFAULT_CO_ENGAGEMENT_OPTIONS: CoEngagementOptions = {
  maxPosts: 100_000,
  neighboursPerPost: 200,
  maxBytes: 64 * 1024 * 1024,
  window: 16,
  servedPerPost: 30,
};

/**
 * How strongly the similarity damps the seed's own popularity, against the neighbour's:
 * sim(p, q) = c(p, q) / (n(p)^α · n(q)^(1−α)). α = ½ is the cosine; a larger α keeps more of
 * a popular neighbour's weight (on the synthetic catalogue, the 30 most similar of 100 kept
 * neighbours, the feature alone: α = ½ nDCG@20 0.078, α = 0.7 0.111, α = 0.85 0.110, α = 1 0.109;
 * all 100 at α = ½: 0.110).
 */
export const SEED_DAMPING = 0.7;

/** sim(p, q) of the served lists (see SEED_DAMPING); counts above a post's own engagements count as them. */
export function coEngagementSimilarity(count: number, engagedSeed: number, engagedNeighbour: number): number {
  return count / (Math.pow(Math.max(engagedSeed, count), SEED_DAMPING) * Math.pow(Math.max(engagedNeighbour, count), 1 - SEED_DAMPING));
}

/** A change of co-engagement as writers announce it: `postId` paired with each of `withPostIds`, by `weight` (+1, or −1 for an undo). */
export interface CoEngagementChange {
  readonly postId: string;
  readonly withPostIds: readonly string[];
  readonly weight: number;
}

/** What ranking reads of the state. */
export interface CoEngagementReader {
  /** Calls `visit` for each kept neighbour of a post: its id, co-engagement count, and its own engagement count. */
  forEachNeighbour(postId: string, visit: (neighbourId: string, count: number, neighbourEngaged: number) => void): void;
  /** How often the post was engaged with (interactions counted by the state), 0 when unknown. */
  engaged(postId: string): number;
  /**
   * Calls `visit` for each of the post's served neighbours (at most `servedPerPost`, the most
   * similar first): its id and sim(post, neighbour) (`coEngagementSimilarity`).
   */
  forEachServedNeighbour(postId: string, visit: (neighbourId: string, similarity: number) => void): void;
}

/** Per-post fixed bytes: id string and map entry (~120), generation, counts, LRU links. */
const POST_BYTES = 140;
/** Per-neighbour bytes: index (4), generation (2), count (4); a served neighbour the same (similarity for count). */
const NEIGHBOUR_BYTES = 10;
/** Per-post bytes of the served list's bookkeeping: its length and two versions. */
const SERVED_POST_BYTES = 9;
/** Weights at or below this are gone (all weights are whole numbers; this absorbs nothing else). */
const GONE = 1e-9;

/** Bounded item-to-item co-engagement counts (see the file's comment). */
export class CoEngagement implements CoEngagementReader {
  readonly options: CoEngagementOptions;
  /** `maxPosts`, lowered to what `maxBytes` allows. */
  readonly capacity: number;
  private readonly k: number;
  /** Served neighbours per post. */
  private readonly ks: number;
  private readonly indexOf = new Map<string, number>();
  private ids: string[] = [];
  private free: number[] = [];
  private allocated = 0;
  private gen = new Uint16Array(0);
  private engagedBy = new Float64Array(0);
  private used = new Uint8Array(0);
  private nIdx = new Int32Array(0);
  private nGen = new Uint16Array(0);
  private nCount = new Float32Array(0);
  /** Bumped by every change of a post's list or count; the served list is recomputed when its version is behind. */
  private version = new Uint32Array(0);
  private servedVersion = new Uint32Array(0);
  private sLen = new Uint8Array(0);
  private sIdx = new Int32Array(0);
  private sGen = new Uint16Array(0);
  private sSim = new Float32Array(0);
  /** Least recently engaged first: a doubly linked list over post indices (-1 ends it). */
  private prev = new Int32Array(0);
  private next = new Int32Array(0);
  private head = -1;
  private tail = -1;

  constructor(options: Partial<CoEngagementOptions> = {}) {
    this.options = { ...DEFAULT_CO_ENGAGEMENT_OPTIONS, ...options };
    this.k = Math.max(1, Math.min(255, Math.floor(this.options.neighboursPerPost)));
    this.ks = Math.max(1, Math.min(this.k, Math.floor(this.options.servedPerPost)));
    const perPost = POST_BYTES + SERVED_POST_BYTES + NEIGHBOUR_BYTES * (this.k + this.ks);
    this.capacity = Math.max(1, Math.min(Math.floor(this.options.maxPosts), Math.floor(this.options.maxBytes / perPost)));
  }

  /** Posts tracked. */
  get size(): number {
    return this.indexOf.size;
  }

  /** Estimated bytes held (the arrays allocated so far, and the ids). */
  estimatedBytes(): number {
    return this.allocated * (POST_BYTES + SERVED_POST_BYTES + NEIGHBOUR_BYTES * (this.k + this.ks));
  }

  /** Applies an announced change (see CoEngagementChange). */
  apply(change: CoEngagementChange): void {
    this.record(change.postId, change.withPostIds, change.weight);
  }

  /**
   * Pairs `postId` with each of `withPostIds` by `weight`, both ways, and counts `weight`
   * engagements of `postId`. A negative weight (an undo) only lowers what is kept.
   */
  record(postId: string, withPostIds: readonly string[], weight: number): void {
    if (!(Number.isFinite(weight) && weight !== 0)) return;
    const p = weight > 0 ? this.touch(postId) : this.indexOf.get(postId);
    if (p === undefined) return;
    this.engagedBy[p] = Math.max(0, this.engagedBy[p]! + weight);
    this.version[p] = this.version[p]! + 1;
    for (const otherId of withPostIds) {
      if (otherId === postId) continue;
      const q = weight > 0 ? this.touch(otherId) : this.indexOf.get(otherId);
      // Touching `q` may have evicted `p` (a state of one post): then there is nothing to pair.
      if (q === undefined || this.ids[p] !== postId) continue;
      this.bump(p, q, weight);
      this.bump(q, p, weight);
    }
  }

  /** Forgets a post (deleted): its list goes, and it leaves the others' lists. */
  remove(postId: string): void {
    const p = this.indexOf.get(postId);
    if (p !== undefined) this.evict(p);
  }

  forEachNeighbour(postId: string, visit: (neighbourId: string, count: number, neighbourEngaged: number) => void): void {
    const p = this.indexOf.get(postId);
    if (p === undefined) return;
    const base = p * this.k;
    for (let j = 0; j < this.used[p]!; j++) {
      const q = this.nIdx[base + j]!;
      if (this.nGen[base + j] !== this.gen[q]) continue;
      visit(this.ids[q]!, this.nCount[base + j]!, this.engagedBy[q]!);
    }
  }

  forEachServedNeighbour(postId: string, visit: (neighbourId: string, similarity: number) => void): void {
    const p = this.indexOf.get(postId);
    if (p === undefined) return;
    if (this.servedVersion[p] !== this.version[p]) this.serve(p);
    const base = p * this.ks;
    for (let j = 0; j < this.sLen[p]!; j++) {
      const q = this.sIdx[base + j]!;
      // A neighbour evicted since: skipped, as in the kept list.
      if (this.sGen[base + j] !== this.gen[q]) continue;
      visit(this.ids[q]!, this.sSim[base + j]!);
    }
  }

  /** Recomputes p's served list: its `ks` most similar live neighbours, most similar first (ties: the smaller index). */
  private serve(p: number): void {
    const base = p * this.k;
    const nSeed = this.engagedBy[p]!;
    const live: number[] = [];
    const sims: number[] = [];
    for (let j = 0; j < this.used[p]!; j++) {
      const q = this.nIdx[base + j]!;
      if (this.nGen[base + j] !== this.gen[q]) continue;
      live.push(j);
      sims.push(coEngagementSimilarity(this.nCount[base + j]!, nSeed, this.engagedBy[q]!));
    }
    const order = live.map((_, i) => i);
    order.sort((a, b) => sims[b]! - sims[a]! || this.nIdx[base + live[a]!]! - this.nIdx[base + live[b]!]!);
    const n = Math.min(this.ks, order.length);
    const out = p * this.ks;
    for (let x = 0; x < n; x++) {
      const j = live[order[x]!]!;
      this.sIdx[out + x] = this.nIdx[base + j]!;
      this.sGen[out + x] = this.nGen[base + j]!;
      this.sSim[out + x] = sims[order[x]!]!;
    }
    this.sLen[p] = n;
    this.servedVersion[p] = this.version[p]!;
  }

  engaged(postId: string): number {
    const p = this.indexOf.get(postId);
    return p === undefined ? 0 : this.engagedBy[p]!;
  }

  /** The kept neighbours of a post, strongest first (ties by id): for tests and inspection. */
  neighbours(postId: string): { id: string; count: number }[] {
    const out: { id: string; count: number }[] = [];
    this.forEachNeighbour(postId, (id, count) => out.push({ id, count }));
    return out.sort((a, b) => b.count - a.count || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Every tracked post id (for tests and inspection). */
  postIds(): string[] {
    return [...this.indexOf.keys()];
  }

  /**
   * Adds `w` to a→b; a newcomer to a full list takes the weakest's place or wears it down (see
   * the file's comment). One pass over a's list finds b and, for a full list, the first stale
   * entry and the first weakest live one (this runs 2·window times per interaction: a second
   * pass per newcomer was half of an interaction's co-engagement cost).
   */
  private bump(a: number, b: number, w: number): void {
    this.version[a] = this.version[a]! + 1;
    const base = a * this.k;
    const n = this.used[a]!;
    const bGen = this.gen[b]!;
    const nIdx = this.nIdx;
    const nGen = this.nGen;
    const nCount = this.nCount;
    const full = n === this.k && w > 0;
    const gen = this.gen;
    let stale = -1;
    let weakest = -1;
    let weakestCount = Infinity;
    for (let j = base, end = base + n; j < end; j++) {
      const q = nIdx[j]!;
      if (q === b && nGen[j] === bGen) {
        const count = nCount[j]! + w;
        if (count > GONE) nCount[j] = count;
        else this.drop(a, j - base);
        return;
      }
      // Full: the first stale entry (naming an evicted post), else the first weakest live one, takes a newcomer.
      if (full && stale === -1) {
        if (nGen[j] !== gen[q]) stale = j;
        else if (nCount[j]! < weakestCount) {
          weakest = j;
          weakestCount = nCount[j]!;
        }
      }
    }
    if (w <= 0) return;
    let at = base + n;
    if (full) {
      if (stale !== -1) at = stale;
      else {
        if (weakestCount > w) {
          nCount[weakest] = weakestCount - w;
          return;
        }
        at = weakest;
      }
    } else this.used[a] = n + 1;
    nIdx[at] = b;
    nGen[at] = bGen;
    nCount[at] = w;
  }

  /** Removes entry j of a's list (the last one takes its place). */
  private drop(a: number, j: number): void {
    const base = a * this.k;
    const last = this.used[a]! - 1;
    this.nIdx[base + j] = this.nIdx[base + last]!;
    this.nGen[base + j] = this.nGen[base + last]!;
    this.nCount[base + j] = this.nCount[base + last]!;
    this.used[a] = last;
  }

  /** The index of a post, created (evicting the least recently engaged when full) or moved to the recent end. */
  private touch(postId: string): number {
    let p = this.indexOf.get(postId);
    if (p !== undefined) {
      this.unlink(p);
      this.link(p);
      return p;
    }
    if (this.indexOf.size >= this.capacity && this.head !== -1) this.evict(this.head);
    p = this.free.pop() ?? this.grow();
    this.indexOf.set(postId, p);
    this.ids[p] = postId;
    this.engagedBy[p] = 0;
    this.used[p] = 0;
    this.sLen[p] = 0;
    this.version[p] = this.version[p]! + 1;
    this.link(p);
    return p;
  }

  private evict(p: number): void {
    const id = this.ids[p]!;
    this.indexOf.delete(id);
    this.ids[p] = '';
    this.unlink(p);
    // Entries elsewhere naming p are recognised as stale by the generation.
    this.gen[p] = (this.gen[p]! + 1) & 0xffff;
    this.used[p] = 0;
    this.sLen[p] = 0;
    this.version[p] = this.version[p]! + 1;
    this.engagedBy[p] = 0;
    this.free.push(p);
  }

  private grow(): number {
    const p = this.allocated;
    if (p >= this.gen.length) {
      const size = Math.min(this.capacity, Math.max(1024, this.gen.length * 2));
      const k = this.k;
      this.gen = grown(this.gen, new Uint16Array(size));
      this.engagedBy = grown(this.engagedBy, new Float64Array(size));
      this.used = grown(this.used, new Uint8Array(size));
      this.prev = grown(this.prev, new Int32Array(size));
      this.next = grown(this.next, new Int32Array(size));
      this.nIdx = grown(this.nIdx, new Int32Array(size * k));
      this.nGen = grown(this.nGen, new Uint16Array(size * k));
      this.nCount = grown(this.nCount, new Float32Array(size * k));
      const ks = this.ks;
      this.version = grown(this.version, new Uint32Array(size));
      this.servedVersion = grown(this.servedVersion, new Uint32Array(size));
      this.sLen = grown(this.sLen, new Uint8Array(size));
      this.sIdx = grown(this.sIdx, new Int32Array(size * ks));
      this.sGen = grown(this.sGen, new Uint16Array(size * ks));
      this.sSim = grown(this.sSim, new Float32Array(size * ks));
    }
    this.allocated += 1;
    return p;
  }

  private link(p: number): void {
    this.prev[p] = this.tail;
    this.next[p] = -1;
    if (this.tail !== -1) this.next[this.tail] = p;
    else this.head = p;
    this.tail = p;
  }

  private unlink(p: number): void {
    const before = this.prev[p]!;
    const after = this.next[p]!;
    if (before !== -1) this.next[before] = after;
    else this.head = after;
    if (after !== -1) this.prev[after] = before;
    else this.tail = before;
  }
}

function grown<T extends Uint8Array | Uint16Array | Uint32Array | Int32Array | Float32Array | Float64Array>(old: T, fresh: T): T {
  fresh.set(old);
  return fresh;
}

/** One stored interaction as the replay reads it (in time order). */
export interface CoEngagementEvent {
  readonly userId: string;
  readonly postId: string;
}

/**
 * Replays stored interactions, oldest first, through the writers' rule: each pairs its post
 * with the user's `window` most recent other posts (as `recentOtherPosts` computes them).
 */
export class CoEngagementReplay {
  private readonly recent = new Map<string, string[]>();

  constructor(private readonly state: CoEngagement) {}

  add(event: CoEngagementEvent): void {
    const window = this.state.options.window;
    let recent = this.recent.get(event.userId);
    if (recent === undefined) this.recent.set(event.userId, (recent = []));
    const at = recent.indexOf(event.postId);
    if (at !== -1) recent.splice(at, 1);
    this.state.record(event.postId, recent.length > window ? recent.slice(0, window) : recent, 1);
    recent.unshift(event.postId);
    // One more than the window: when the next post is one of them, `window` others remain.
    if (recent.length > window + 1) recent.length = window + 1;
  }
}

/** A state built from stored interactions given oldest first. */
export function replayCoEngagement(events: Iterable<CoEngagementEvent>, options: Partial<CoEngagementOptions> = {}): CoEngagement {
  const state = new CoEngagement(options);
  const replay = new CoEngagementReplay(state);
  for (const event of events) replay.add(event);
  return state;
}

/**
 * The writers' rule: of a user's posts newest first (one entry per interaction, duplicates
 * allowed), the `window` most recent distinct ones other than `postId`.
 */
export function recentOtherPosts(postIdsNewestFirst: readonly string[], postId: string, window: number): string[] {
  const out: string[] = [];
  for (const id of postIdsNewestFirst) {
    if (out.length >= window) break;
    if (id !== postId && !out.includes(id)) out.push(id);
  }
  return out;
}
