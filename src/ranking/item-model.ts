/**
 * The periodic item–item model: Steck's EASE ("Embarrassingly Shallow Autoencoders", 2019)
 * fitted off the write path on the positive (user, post) pairs of the newest interactions,
 * over the most engaged posts (at most `maxItems`), each post keeping its `neighbours`
 * strongest positive weights as compact arrays. The collaborative feature reads it through
 * `ModelledCoEngagement`, beside the write-time state (./co-engagement.ts): a seed post is
 * served the state's neighbours and, when the model holds it, the model's, so posts newer than
 * the last build are still served.
 *
 * EASE: with X the user × item matrix of the pairs (1 where the user engaged), G = XᵀX + λI,
 * P = G⁻¹, B = I − P·diag(1/diag P): B[a][b] = −P[a][b] / P[b][b] for b ≠ a, 0 on the
 * diagonal. A user's score of b is Σ over their posts a of B[a][b]; the model keeps each row's
 * top `neighbours` positive entries. Memory while fitting: the n×n Gram matrix and the
 * inverse's three n×n arrays (32·n² bytes, 128 MB at n = 2,000); time ∝ n³
 * (docs/ranking.md, "The periodic item–item model").
 *
 * Beside EASE, the same pairs give each of many more posts (`cosineItems`, the most engaged
 * first) its `cosineNeighbours` nearest by cosine, c(a, b) / √(n(a)·n(b)) over distinct users:
 * item-to-item kNN, whose cost grows with the pairs, not with n³, so it reaches a catalogue's
 * long tail that EASE's few thousand posts and the write-time state's lists kept by count miss.
 */
import type { CoEngagementReader } from './co-engagement.js';
import { invertSpd } from './spd-inverse.js';

export interface ItemModelOptions {
  /** Posts the model is fitted over: the most engaged (by distinct users) of the pairs. */
  readonly maxItems: number;
  /** Neighbours kept per post (its strongest positive weights). */
  readonly neighbours: number;
  /** EASE's L2 regularisation λ. */
  readonly lambda: number;
  /** Posts engaged by fewer distinct users are left out (they have no neighbour to learn). */
  readonly minUsers: number;
  /** Below this many distinct (user, post) pairs nothing is fitted (an empty model). */
  readonly minPairs: number;
  /** Posts in the cosine lists: the most engaged (by distinct users) of the pairs, `minUsers` or not (0: none). */
  readonly cosineItems: number;
  /** Cosine neighbours kept per post. */
  readonly cosineNeighbours: number;
}

export const DEFAULT_ITEM_MODEL_OPTIONS: ItemModelOptions = {
  maxItems: 1_000,
  neighbours: 50,
  lambda: 100,
  minUsers: 2,
  minPairs: 2_000,
  cosineItems: 10_000,
  cosineNeighbours: 50,
};

/** The upper bound on `cosineItems` (the lists hold about 8 bytes a neighbour: 20 MB at 50,000 × 50). */
export const MAX_COSINE_ITEMS = 50_000;
/**
 * A user's posts counted by the cosine part: their first this many in the pairs' order. The
 * work is Σ over users of their posts squared; this bounds one very active account's share.
 */
export const MAX_COSINE_POSTS_PER_USER = 1_000;

/** The newest interactions a build reads (the server's job and the evaluation's cutoff alike). */
export const ITEM_MODEL_HISTORY = 200_000;

/** The upper bound on `maxItems` (the fit holds 32·n² bytes: 288 MB at 3,000). */
export const MAX_ITEM_MODEL_ITEMS = 3_000;
/** The upper bound on `neighbours`. */
export const MAX_ITEM_MODEL_NEIGHBOURS = 200;

/** One positive pair of the data the model is fitted on. */
export interface ItemModelPair {
  readonly userId: string;
  readonly postId: string;
}

/**
 * Neighbour lists as data: post i's neighbours are entries `offsets[i]` to `offsets[i + 1]` of
 * `neighbours` (positions in `ids`) and `weights`, strongest first.
 */
export interface NeighbourLists {
  readonly ids: readonly string[];
  readonly offsets: Uint32Array;
  readonly neighbours: Uint32Array;
  readonly weights: Float32Array;
}

/** A fitted model as data (what is stored and loaded): EASE's lists, and the cosine lists (absent in a model stored before them). */
export interface ItemModelData extends NeighbourLists {
  readonly cosine?: NeighbourLists;
}

/** Bytes per post held beside its neighbours (id string and map entry, offset). */
const POST_BYTES = 120;
/** Bytes per neighbour entry (position and weight). */
const NEIGHBOUR_BYTES = 8;

/** Neighbour lists read by post id. */
class Lists {
  private readonly indexOf: Map<string, number>;

  constructor(readonly data: NeighbourLists) {
    if (data.offsets.length !== data.ids.length + 1) throw new Error('item model: offsets do not match the posts');
    const entries = data.offsets[data.ids.length] as number;
    if (data.neighbours.length !== entries || data.weights.length !== entries) throw new Error('item model: entries do not match');
    for (let i = 0; i < entries; i++) if ((data.neighbours[i] as number) >= data.ids.length) throw new Error('item model: bad neighbour');
    this.indexOf = new Map(data.ids.map((id, i) => [id, i]));
  }

  has(postId: string): boolean {
    return this.indexOf.has(postId);
  }

  forEach(postId: string, visit: (neighbourId: string, weight: number) => void): void {
    const i = this.indexOf.get(postId);
    if (i === undefined) return;
    const { ids, offsets, neighbours, weights } = this.data;
    for (let x = offsets[i] as number; x < (offsets[i + 1] as number); x++)
      visit(ids[neighbours[x] as number] as string, weights[x] as number);
  }
}

const NO_LISTS: NeighbourLists = { ids: [], offsets: new Uint32Array(1), neighbours: new Uint32Array(0), weights: new Float32Array(0) };

/** A fitted model, read by post id. */
export class ItemModel {
  private readonly ease: Lists;
  private readonly cosine: Lists;

  constructor(readonly data: ItemModelData) {
    this.ease = new Lists(data);
    this.cosine = new Lists(data.cosine ?? NO_LISTS);
  }

  /** Posts EASE's lists hold. */
  get size(): number {
    return this.data.ids.length;
  }

  /** Posts the cosine lists hold. */
  get cosinePosts(): number {
    return this.cosine.data.ids.length;
  }

  /** Neighbour entries held (both kinds). */
  get entries(): number {
    return this.data.weights.length + this.cosine.data.weights.length;
  }

  /** Estimated bytes held in memory. */
  estimatedBytes(): number {
    return (this.data.ids.length + this.cosine.data.ids.length) * POST_BYTES + this.entries * NEIGHBOUR_BYTES;
  }

  has(postId: string): boolean {
    return this.ease.has(postId) || this.cosine.has(postId);
  }

  /** Calls `visit` for each kept EASE neighbour of a post, strongest first, with its weight B[post][neighbour]. */
  forEachNeighbour(postId: string, visit: (neighbourId: string, weight: number) => void): void {
    this.ease.forEach(postId, visit);
  }

  /** Calls `visit` for each kept cosine neighbour of a post, nearest first, with the cosine (in (0, 1]). */
  forEachCosineNeighbour(postId: string, visit: (neighbourId: string, cosine: number) => void): void {
    this.cosine.forEach(postId, visit);
  }

  /** The strongest EASE weight of any post's list (0 for none): what `ModelledCoEngagement` scales EASE's by. */
  maxWeight(): number {
    let max = 0;
    for (const w of this.data.weights) if (w > max) max = w;
    return max;
  }
}

/** What a fit saw and kept. */
export interface ItemModelFit {
  readonly data: ItemModelData;
  /** Distinct users and (user, post) pairs read. */
  readonly users: number;
  readonly pairs: number;
  /** Posts engaged at least `minUsers` times (of which at most `maxItems` were fitted); 0 below `minPairs`. */
  readonly eligible: number;
}

/**
 * Fits EASE on the pairs (duplicates count once) over the most engaged posts (distinct users,
 * ties to the smaller id) and keeps each post's strongest positive neighbours (ties to the
 * smaller position); then the cosine lists over the `cosineItems` most engaged posts (the same
 * order, posts of one user included). Deterministic for a given set of pairs.
 */
export function fitItemModel(pairs: Iterable<ItemModelPair>, options: Partial<ItemModelOptions> = {}): ItemModelFit {
  const o = { ...DEFAULT_ITEM_MODEL_OPTIONS, ...options };
  const maxItems = Math.max(0, Math.min(MAX_ITEM_MODEL_ITEMS, Math.floor(o.maxItems)));
  const k = Math.max(1, Math.min(MAX_ITEM_MODEL_NEIGHBOURS, Math.floor(o.neighbours)));
  const postsOf = new Map<string, Set<string>>();
  const usersOf = new Map<string, number>();
  let pairCount = 0;
  for (const { userId, postId } of pairs) {
    let posts = postsOf.get(userId);
    if (posts === undefined) postsOf.set(userId, (posts = new Set()));
    if (posts.has(postId)) continue;
    posts.add(postId);
    pairCount += 1;
    usersOf.set(postId, (usersOf.get(postId) ?? 0) + 1);
  }
  const ranked = pairCount < o.minPairs ? [] : [...usersOf];
  ranked.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const eligible = ranked.filter(([, n]) => n >= o.minUsers);
  const ids = eligible.slice(0, maxItems).map(([id]) => id);
  const n = ids.length;
  const slot = new Map(ids.map((id, s) => [id, s]));
  const g = new Float64Array(n * n);
  const slots: number[] = [];
  for (const posts of postsOf.values()) {
    slots.length = 0;
    for (const id of posts) {
      const s = slot.get(id);
      if (s !== undefined) slots.push(s);
    }
    for (const a of slots) {
      const row = a * n;
      for (const b of slots) g[row + b] = (g[row + b] as number) + 1;
    }
  }
  for (let s = 0; s < n; s++) g[s * n + s] = (g[s * n + s] as number) + o.lambda;
  const p = n === 0 ? g : invertSpd(g, n);
  const offsets = new Uint32Array(n + 1);
  const outIdx: number[] = [];
  const outW: number[] = [];
  const row: number[] = [];
  const weights = new Float64Array(n);
  for (let a = 0; a < n; a++) {
    row.length = 0;
    for (let b = 0; b < n; b++) {
      // B[a][b] = −P[a][b] / P[b][b] (0 on the diagonal).
      weights[b] = b === a ? 0 : -(p[a * n + b] as number) / (p[b * n + b] as number);
      if (weights[b]! > 0) row.push(b);
    }
    row.sort((x, y) => weights[y]! - weights[x]! || x - y);
    for (let x = 0; x < Math.min(k, row.length); x++) {
      outIdx.push(row[x] as number);
      outW.push(weights[row[x] as number] as number);
    }
    offsets[a + 1] = outIdx.length;
  }
  // Every post of the pairs may be a cosine neighbour, one user's too: the long tail is where they count.
  const cosineIds = ranked.slice(0, Math.max(0, Math.min(MAX_COSINE_ITEMS, Math.floor(o.cosineItems)))).map(([id]) => id);
  const cosine = cosineLists(postsOf, cosineIds, Math.max(1, Math.floor(o.cosineNeighbours)));
  return {
    data: { ids, offsets, neighbours: Uint32Array.from(outIdx), weights: Float32Array.from(outW), cosine },
    users: postsOf.size,
    pairs: pairCount,
    eligible: eligible.length,
  };
}

/**
 * Each post's `k` nearest among `ids` by cosine over distinct users (ties to the smaller
 * position), from each user's posts (their first MAX_COSINE_POSTS_PER_USER of `ids`). For each
 * post a, the co-counts of every post sharing a user with it are summed in a dense array:
 * Σ over users of their posts squared, and memory linear in the posts and pairs.
 */
function cosineLists(postsOf: ReadonlyMap<string, ReadonlySet<string>>, ids: readonly string[], k: number): NeighbourLists {
  const n = ids.length;
  const slot = new Map(ids.map((id, s) => [id, s]));
  const postsOfUser: Int32Array[] = [];
  const usersOfPost: number[][] = Array.from({ length: n }, () => []);
  for (const posts of postsOf.values()) {
    const slots: number[] = [];
    for (const id of posts) {
      const s = slot.get(id);
      if (s === undefined) continue;
      slots.push(s);
      if (slots.length === MAX_COSINE_POSTS_PER_USER) break;
    }
    // A user of one post pairs nothing, but counts in that post's n.
    const u = postsOfUser.push(Int32Array.from(slots)) - 1;
    for (const s of slots) usersOfPost[s]!.push(u);
  }
  const co = new Float64Array(n);
  const touched: number[] = [];
  const offsets = new Uint32Array(n + 1);
  const outIdx: number[] = [];
  const outW: number[] = [];
  for (let a = 0; a < n; a++) {
    const users = usersOfPost[a]!;
    for (const u of users) {
      for (const b of postsOfUser[u]!) {
        if (b === a) continue;
        if (co[b] === 0) touched.push(b);
        co[b] = (co[b] as number) + 1;
      }
    }
    const na = users.length;
    const scored = touched.map((b) => ({ b, cos: (co[b] as number) / Math.sqrt(na * usersOfPost[b]!.length) }));
    for (const b of touched) co[b] = 0;
    touched.length = 0;
    scored.sort((x, y) => y.cos - x.cos || x.b - y.b);
    for (let x = 0; x < Math.min(k, scored.length); x++) {
      outIdx.push(scored[x]!.b);
      outW.push(scored[x]!.cos);
    }
    offsets[a + 1] = outIdx.length;
  }
  return { ids, offsets, neighbours: Uint32Array.from(outIdx), weights: Float32Array.from(outW) };
}

/**
 * How much the model weighs beside the write-time state, as a share of the state's upper end:
 * a model seed's weights are scaled so the model's strongest is MODEL_BLEND, the live
 * similarity's being at most 1 (`coEngagementSimilarity`). Chosen on the synthetic catalogue
 * (docs/ranking.md, "The periodic item–item model").
 */
export const MODEL_BLEND = 1;

/**
 * The collaborative feature's reader with a model beside the write-time state: each seed post
 * is served the state's neighbours, and, when the model holds it, the model's neighbours too,
 * their weights × `scale` (a neighbour both name counts twice: the feature sums). The feature
 * divides a user's sums by their best, so only `scale` against the live similarities matters:
 * by default MODEL_BLEND over the model's strongest weight (`modelScale`). The counts
 * (`forEachNeighbour`, `engaged`) stay the state's.
 */
export class ModelledCoEngagement implements CoEngagementReader {
  constructor(
    readonly model: ItemModel,
    readonly live: CoEngagementReader,
    readonly scale: number = modelScale(model),
  ) {}

  forEachNeighbour(postId: string, visit: (neighbourId: string, count: number, neighbourEngaged: number) => void): void {
    this.live.forEachNeighbour(postId, visit);
  }

  engaged(postId: string): number {
    return this.live.engaged(postId);
  }

  forEachServedNeighbour(postId: string, visit: (neighbourId: string, similarity: number) => void): void {
    this.live.forEachServedNeighbour(postId, visit);
    const scale = this.scale;
    this.model.forEachNeighbour(postId, (id, weight) => visit(id, weight * scale));
    // A cosine is on the live similarity's scale (at most 1): served as it is.
    this.model.forEachCosineNeighbour(postId, visit);
  }
}

/** The model's weights scaled so its strongest is `blend` (see MODEL_BLEND). */
export function modelScale(model: ItemModel, blend = MODEL_BLEND): number {
  const max = model.maxWeight();
  return max > 0 ? blend / max : 0;
}

/** A model as JSON text, as it is stored (`itemModelFromJson` reads it back). */
export function itemModelToJson(data: ItemModelData): string {
  // Nine significant digits read back as the same float32, in about half the text of a float64's.
  const weights = (w: Float32Array) => Array.from(w, (x) => Number(x.toPrecision(9)));
  const lists = (l: NeighbourLists) => ({
    ids: l.ids,
    offsets: [...l.offsets],
    neighbours: [...l.neighbours],
    weights: weights(l.weights),
  });
  return JSON.stringify(data.cosine === undefined ? lists(data) : { ...lists(data), cosine: lists(data.cosine) });
}

/**
 * A model as stored since migration 0052 (`item_models.model_bytes`): the first 8 bytes
 * MODEL_BYTES_MAGIC, a little-endian uint32 with the header's length, the header (UTF-8 JSON:
 * each list's post ids and entry count, EASE's first, the cosine lists' second when there are
 * any), zero padding to a multiple of 4, then per list its offsets and neighbours (uint32) and
 * weights (float32), little-endian. Loading it copies three blocks per list where the JSON text
 * (9.4 MB for the bench's 1,000 posts) took about 200 ms of the serving thread to read and parse;
 * it is also half the size.
 */
export function itemModelToBytes(data: ItemModelData): Uint8Array {
  const lists = data.cosine === undefined ? [data] : [data, data.cosine];
  const header = new TextEncoder().encode(JSON.stringify({ lists: lists.map((l) => ({ ids: l.ids, entries: l.weights.length })) }));
  const start = align4(MODEL_BYTES_MAGIC.length + 4 + header.length);
  const size = lists.reduce((n, l) => n + 4 * (l.offsets.length + l.neighbours.length + l.weights.length), start);
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  bytes.set(MODEL_BYTES_MAGIC, 0);
  view.setUint32(MODEL_BYTES_MAGIC.length, header.length, true);
  bytes.set(header, MODEL_BYTES_MAGIC.length + 4);
  let at = start;
  for (const l of lists) {
    for (const x of l.offsets) at = (view.setUint32(at, x, true), at + 4);
    for (const x of l.neighbours) at = (view.setUint32(at, x, true), at + 4);
    for (const x of l.weights) at = (view.setFloat32(at, x, true), at + 4);
  }
  return bytes;
}

/** "recsvcM1": what a stored model's bytes begin with (itemModelToBytes). */
const MODEL_BYTES_MAGIC = new TextEncoder().encode('recsvcM1');
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

function align4(n: number): number {
  return (n + 3) & ~3;
}

/** Reads `itemModelToBytes`'s bytes; throws on anything else (a model that does not hold together is not served). */
export function itemModelFromBytes(bytes: Uint8Array): ItemModel {
  const magic = MODEL_BYTES_MAGIC.length;
  if (bytes.length < magic + 4 || MODEL_BYTES_MAGIC.some((b, i) => bytes[i] !== b)) throw new Error('item model: not a stored model');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(magic, true);
  if (magic + 4 + headerLength > bytes.length) throw new Error('item model: truncated');
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(magic + 4, magic + 4 + headerLength)));
  } catch {
    throw new Error('item model: bad header');
  }
  const lists = (header as { lists?: unknown }).lists;
  if (!Array.isArray(lists) || lists.length < 1 || lists.length > 2) throw new Error('item model: bad header');
  let at = align4(magic + 4 + headerLength);
  // Copies `count` 4-byte values at `at` (their own buffer: nothing keeps the stored bytes alive).
  const block = <T extends Uint32Array | Float32Array>(
    count: number,
    make: (buffer: ArrayBuffer) => T,
    read: (offset: number) => number,
  ): T => {
    if (at + 4 * count > bytes.length) throw new Error('item model: truncated');
    const from = bytes.byteOffset + at;
    const out = LITTLE_ENDIAN ? make(bytes.buffer.slice(from, from + 4 * count) as ArrayBuffer) : make(new ArrayBuffer(4 * count));
    if (!LITTLE_ENDIAN) for (let i = 0; i < count; i++) out[i] = read(at + 4 * i);
    at += 4 * count;
    return out;
  };
  const read = lists.map((l: unknown): NeighbourLists => {
    const { ids, entries } = (l ?? {}) as { ids?: unknown; entries?: unknown };
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string') || !Number.isInteger(entries) || (entries as number) < 0)
      throw new Error('item model: bad header');
    const n = entries as number;
    return {
      ids,
      offsets: block(
        ids.length + 1,
        (b) => new Uint32Array(b),
        (o) => view.getUint32(o, true),
      ),
      neighbours: block(
        n,
        (b) => new Uint32Array(b),
        (o) => view.getUint32(o, true),
      ),
      weights: block(
        n,
        (b) => new Float32Array(b),
        (o) => view.getFloat32(o, true),
      ),
    };
  });
  if (at !== bytes.length) throw new Error('item model: trailing bytes');
  const [ease, cosine] = read as [NeighbourLists, NeighbourLists | undefined];
  return new ItemModel(cosine === undefined ? ease : { ...ease, cosine });
}

/** Reads `itemModelToJson`'s text (with or without cosine lists; models stored before migration 0052); throws on anything else (a model that does not hold together is not served). */
export function itemModelFromJson(text: string): ItemModel {
  const value = JSON.parse(text) as Record<string, unknown>;
  const cosine = value.cosine;
  return new ItemModel(cosine === undefined ? listsOf(value) : { ...listsOf(value), cosine: listsOf(cosine) });
}

function listsOf(value: unknown): NeighbourLists {
  if (typeof value !== 'object' || value === null) throw new Error('item model: not an object');
  const { ids, offsets, neighbours, weights } = value as { ids?: unknown; offsets?: unknown; neighbours?: unknown; weights?: unknown };
  const numbers = (v: unknown): number[] => {
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'number' && Number.isFinite(x)))
      throw new Error('item model: not an array of numbers');
    return v as number[];
  };
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) throw new Error('item model: bad ids');
  return {
    ids,
    offsets: Uint32Array.from(numbers(offsets)),
    neighbours: Uint32Array.from(numbers(neighbours)),
    weights: Float32Array.from(numbers(weights)),
  };
}
