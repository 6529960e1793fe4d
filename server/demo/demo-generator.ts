/**
 * Generates the demo data set deterministically from a seed and an anchor time:
 * authors with favourite topics and a heavy-tailed popularity, posts with tags and
 * text from those topics, and users whose interactions follow their interests and
 * the posts' popularity (so a few posts get most of the engagement).
 */
import { createRandom, randomInt } from '../../src/random.js';
import { FILLER, LANGUAGES, TOPIC_NAMES, TOPICS } from './demo-content.js';
import type { InteractionAction } from '../../src/schemas/interaction.schema.js';

export interface DemoSizes {
  authors: number;
  posts: number;
  users: number;
  interactions: number;
  /** Posts are spread over this many days before the anchor time. */
  days: number;
}

export const DEFAULT_DEMO_SIZES: DemoSizes = { authors: 300, posts: 4000, users: 2000, interactions: 60_000, days: 7 };

export interface DemoAuthor {
  id: string;
  username: string;
  topics: string[];
  popularity: number;
}

export interface DemoPost {
  id: string;
  authorIndex: number;
  createdAtMs: number;
  text: string;
  tags: string[];
  language: string;
  /** Engagement from beyond this data set (other instances), heavy-tailed. */
  remoteFavourites: number;
  remoteReblogs: number;
  replies: number;
  weight: number;
}

export interface DemoInteraction {
  id: string;
  userId: string;
  postIndex: number;
  /** The id of `posts[postIndex]`. */
  postId: string;
  action: InteractionAction;
  createdAtMs: number;
}

export interface DemoData {
  authors: DemoAuthor[];
  posts: DemoPost[];
  users: string[];
  interactions: DemoInteraction[];
}

/** Pareto-distributed value ≥ 1 with tail index `alpha` (smaller: heavier tail). */
function pareto(random: () => number, alpha: number): number {
  return Math.pow(1 - random(), -1 / alpha);
}

const ACTIONS: readonly InteractionAction[] = ['favorite', 'reblog', 'bookmark'];

function pick<T>(random: () => number, xs: readonly T[]): T {
  return xs[randomInt(random, xs.length)] as T;
}

function pickLanguage(random: () => number): string {
  let u = random();
  for (const [code, share] of LANGUAGES) {
    if (u < share) return code;
    u -= share;
  }
  return 'en';
}

/** Index drawn with probability proportional to weight, from cumulative weights. */
function drawWeighted(random: () => number, cumulative: Float64Array): number {
  const total = cumulative[cumulative.length - 1] ?? 0;
  const target = random() * total;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((cumulative[mid] ?? 0) > target) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The decimal text of `ms * 65536 + low` (a snowflake-style id: the instant in the high bits,
 * `low` < 65536 in the low 16), what `((BigInt(ms) << 16n) | BigInt(low)).toString()` gives,
 * without a BigInt: millions of ids are made per data set.
 */
function snowflakeId(ms: number, low: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_FAST_ID_MS) return ((BigInt(ms) << 16n) | BigInt(low)).toString();
  // ms = high * 1e6 + rest, so the id is (high * 65536 + ⌊x / 1e6⌋) * 1e6 + x mod 1e6 with x = rest * 65536 + low.
  const high = Math.floor(ms / 1e6);
  const x = (ms - high * 1e6) * 65536 + low;
  const upper = high * 65536 + Math.floor(x / 1e6);
  const lower = x % 1e6;
  return upper === 0 ? String(lower) : `${upper}${String(lower).padStart(6, '0')}`;
}

/**
 * A set of non-negative integers below 2^53 in one open-addressed table (linear probing):
 * millions of ids without a heap number or a hash-table entry object each.
 */
class IntegerSet {
  private keys: Float64Array;
  private size = 0;

  constructor(expected: number) {
    let capacity = 1024;
    while (capacity < expected * 2) capacity *= 2;
    this.keys = new Float64Array(capacity).fill(-1);
  }

  /** Adds `key`; false when it was there already. */
  add(key: number): boolean {
    if ((this.size + 1) * 2 > this.keys.length) this.grow();
    const mask = this.keys.length - 1;
    for (let slot = IntegerSet.hash(key) & mask; ; slot = (slot + 1) & mask) {
      const stored = this.keys[slot];
      if (stored === key) return false;
      if (stored === -1) {
        this.keys[slot] = key;
        this.size++;
        return true;
      }
    }
  }

  private grow(): void {
    const old = this.keys;
    this.keys = new Float64Array(old.length * 2).fill(-1);
    this.size = 0;
    for (const key of old) if (key !== -1) this.add(key);
  }

  private static hash(key: number): number {
    const low = key % 4294967296;
    const high = (key - low) / 4294967296;
    return Math.imul((low | 0) ^ Math.imul(high | 0, 0x9e3779b1), 0x85ebca6b) ^ (low >>> 15);
  }
}

/** Up to this instant (year 33658), every step of snowflakeId's arithmetic stays exact in a double. */
const MAX_FAST_ID_MS = 1e15;

function cumulate(weights: readonly number[]): Float64Array {
  const out = new Float64Array(weights.length);
  let sum = 0;
  weights.forEach((w, i) => {
    sum += w;
    out[i] = sum;
  });
  return out;
}

/** The whole data set; the same seed, sizes and anchor give the same data. */
export function generateDemoData(sizes: DemoSizes, anchorMs: number, seed = 20250301): DemoData {
  const random = createRandom(seed);
  const authors: DemoAuthor[] = Array.from({ length: sizes.authors }, (_, i) => ({
    id: String(100_000 + i),
    username: `author${i}`,
    topics: [pick(random, TOPIC_NAMES), pick(random, TOPIC_NAMES), pick(random, TOPIC_NAMES)],
    popularity: pareto(random, 1.3),
  }));
  const authorCumulative = cumulate(authors.map((a) => Math.sqrt(a.popularity)));
  const spanMs = sizes.days * 86_400_000;

  const posts: DemoPost[] = [];
  for (let i = 0; i < sizes.posts; i++) {
    const authorIndex = drawWeighted(random, authorCumulative);
    const author = authors[authorIndex] as DemoAuthor;
    // Older posts are rarer: the network grew over the window.
    const createdAtMs = anchorMs - Math.floor(spanMs * Math.pow(random(), 1.5)) - 1;
    const topic = pick(random, author.topics);
    const tags = random() < 0.35 ? [topic, pick(random, TOPIC_NAMES)] : [topic];
    const words = Array.from({ length: 6 + randomInt(random, 8) }, () =>
      random() < 0.6 ? pick(random, TOPICS[random() < 0.85 ? topic : pick(random, TOPIC_NAMES)] ?? FILLER) : pick(random, FILLER),
    );
    const quality = pareto(random, 1.6) * author.popularity;
    posts.push({
      id: '',
      authorIndex,
      createdAtMs,
      text: words.join(' '),
      tags: [...new Set(tags)],
      language: pickLanguage(random),
      remoteFavourites: Math.floor(quality * random() * 3),
      remoteReblogs: Math.floor(quality * random() * 0.8),
      replies: Math.floor(quality * random() * 0.5),
      weight: quality,
    });
  }
  posts.sort((a, b) => a.createdAtMs - b.createdAtMs);
  posts.forEach((post, i) => {
    post.id = snowflakeId(post.createdAtMs, i & 0xffff);
  });

  const byTopic = new Map<string, number[]>();
  posts.forEach((post, i) => {
    for (const tag of post.tags) {
      const list = byTopic.get(tag) ?? [];
      list.push(i);
      byTopic.set(tag, list);
    }
  });
  const topicCumulative = new Map(
    [...byTopic].map(([topic, idx]) => [topic, { idx, cum: cumulate(idx.map((i) => posts[i]?.weight ?? 1)) }]),
  );
  const globalCumulative = cumulate(posts.map((p) => p.weight));

  const users = Array.from({ length: sizes.users }, (_, i) => `user${i + 1}`);
  const activity = users.map(() => pareto(random, 1.8));
  const activityTotal = activity.reduce((a, b) => a + b, 0);
  const interactions: DemoInteraction[] = [];
  // An id is the instant in the high bits and a counter in the low 16, bumped past ids taken.
  // Ids taken are kept as numbers, the instant counted from the oldest possible post: exact
  // in a double for windows up to about 1,500 days.
  const oldestMs = anchorMs - spanMs - 1;
  if (!Number.isSafeInteger(oldestMs) || !Number.isSafeInteger((spanMs + 2) * 65536 + sizes.interactions))
    throw new RangeError(`demo data: cannot make interaction ids over ${sizes.days} days before ${anchorMs}`);
  if (!Number.isSafeInteger(users.length * posts.length * 3)) throw new RangeError('demo data: too many users and posts');
  const usedIds = new IntegerSet(sizes.interactions);
  // The (user, post, action) triples done, as numbers (exact while users × posts × 3 < 2^53).
  const done = new IntegerSet(sizes.interactions);
  const actionsPerUser = posts.length * 3;
  const add = (u: number, postIndex: number): void => {
    const roll = random();
    const actionIndex = roll < 0.7 ? 0 : roll < 0.85 ? 1 : 2;
    if (!done.add(u * actionsPerUser + postIndex * 3 + actionIndex)) return;
    const post = posts[postIndex] as DemoPost;
    const createdAtMs = post.createdAtMs + Math.floor((anchorMs - post.createdAtMs) * random() * random());
    let idKey = (createdAtMs - oldestMs) * 65536 + (interactions.length & 0xffff);
    while (!usedIds.add(idKey)) idKey += 1;
    const low = idKey % 65536;
    interactions.push({
      id: snowflakeId(oldestMs + (idKey - low) / 65536, low),
      userId: users[u] as string,
      postIndex,
      postId: post.id,
      action: ACTIONS[actionIndex] as InteractionAction,
      createdAtMs,
    });
  };
  users.forEach((_, u) => {
    const quota = Math.round((sizes.interactions * (activity[u] ?? 1)) / activityTotal);
    const interests = [topicCumulative.get(pick(random, TOPIC_NAMES)), topicCumulative.get(pick(random, TOPIC_NAMES))];
    const target = Math.min(sizes.interactions, interactions.length + quota);
    for (let attempt = 0; interactions.length < target && attempt < quota * 3; attempt++) {
      const topic = pick(random, interests);
      add(u, random() < 0.75 && topic ? (topic.idx[drawWeighted(random, topic.cum)] ?? 0) : drawWeighted(random, globalCumulative));
    }
  });
  // Rounding and saturated users leave a few short: top up with popular posts for random users.
  const capacity = users.length * posts.length * 3;
  while (interactions.length < Math.min(sizes.interactions, capacity))
    add(randomInt(random, users.length), drawWeighted(random, globalCumulative));
  return { authors, posts, users, interactions };
}
