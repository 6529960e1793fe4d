/**
 * The demo data set: the planted structure of the evaluation's generator
 * (src/evaluation/synthetic-structure.ts: communities with their topics, authors in them,
 * favourite authors, a popularity tail, newcomers) over the past `days`, with engagement drawn
 * fast enough for the benchmark's millions: each user's interactions at once, each post drawn
 * with probability ∝ quality × appeal (an exact mixture: the user's community, topics and
 * favourite authors, and everything), among the posts of the day before the user's start on,
 * within hours of the post (a feed). Deterministic from a seed and an anchor time, with
 * exactly `interactions` interactions; `truth` says what was planted (docs/demo.md).
 */
import { randomInt } from '../../src/random.js';
import { LANGUAGES, SYNTHETIC_TOPICS } from '../../src/evaluation/synthetic-content.js';
import {
  activeShare,
  APPEAL,
  cumulative,
  DAY_MS,
  drawCumulative,
  HOUR_MS,
  plantStructure,
  postWords,
  type PlantedPost,
  type PlantedStructure,
  type PlantedUser,
} from '../../src/evaluation/synthetic-structure.js';
import type { InteractionAction } from '../../src/schemas/interaction.schema.js';

export interface DemoSizes {
  authors: number;
  posts: number;
  users: number;
  interactions: number;
  /** Posts are spread over this many days before the anchor time. */
  days: number;
}

export const DEFAULT_DEMO_SIZES: DemoSizes = { authors: 300, posts: 4000, users: 2000, interactions: 60_000, days: 14 };

/** Communities planted (each with two topics of its own). */
export const DEMO_COMMUNITIES = 8;
/** Share of users who started in the last day or so: short histories. */
const NEWCOMER_SHARE = 0.1;
const NEWCOMER_WINDOW = 0.08;
/** A user engages with a post within hours of its publication (e-folding 4 h), never before the user's start. */
const ATTENTION_MS = 4 * HOUR_MS;
/** Interactions every user has at least (when the sizes allow). */
const MIN_PER_USER = 3;
/** Draws that fall on a post from before the day preceding the user's start are drawn again, this many times at most. */
const REDRAWS = 12;

export interface DemoAuthor {
  id: string;
  username: string;
  /** Topic names. */
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
  /** The topic's name. */
  topic: string;
  /** The community whose users it appeals to. */
  community: number;
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

/** What was planted, by user name (`user1` …) and author username (`author0` …). */
export interface DemoTruth {
  /** Community -> its topics' names. */
  readonly communityTopics: readonly (readonly string[])[];
  readonly userCommunity: ReadonlyMap<string, number>;
  /** User -> the usernames of their favourite authors. */
  readonly favouriteAuthors: ReadonlyMap<string, readonly string[]>;
  /** User -> the topics they are drawn to (their community's and one more). */
  readonly userTopics: ReadonlyMap<string, readonly string[]>;
  /** Users whose activity started in the last day or so (short histories). */
  readonly newcomers: ReadonlySet<string>;
}

export interface DemoData {
  authors: DemoAuthor[];
  posts: DemoPost[];
  users: string[];
  interactions: DemoInteraction[];
  truth: DemoTruth;
}

const ACTIONS: readonly InteractionAction[] = ['favorite', 'reblog', 'bookmark'];

function pickLanguage(random: () => number): string {
  let u = random();
  for (const [code, share] of LANGUAGES) {
    if (u < share) return code;
    u -= share;
  }
  return 'en';
}

const topicName = (topic: number): string => SYNTHETIC_TOPICS[topic]!.name;

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

/**
 * The clock the structure is planted on, then moved to end at the anchor: how many random draws
 * the post times take depends on the time of day, so planting at the anchor itself would give
 * each start's users other communities and favourites.
 */
const PLANTED_END_MS = Date.UTC(2026, 0, 1);

/** The whole data set; the same seed and sizes give the same data, whatever the anchor (its times end there). */
export function generateDemoData(sizes: DemoSizes, anchorMs: number, seed = 20250301): DemoData {
  const planted = plantStructure({
    regime: 'feed',
    seed,
    users: sizes.users,
    authors: sizes.authors,
    posts: sizes.posts,
    communities: DEMO_COMMUNITIES,
    days: sizes.days,
    endMs: PLANTED_END_MS,
    newcomerShare: NEWCOMER_SHARE,
    newcomerWindow: NEWCOMER_WINDOW,
  });
  const shift = anchorMs - PLANTED_END_MS;
  const structure: PlantedStructure = {
    ...planted,
    startMs: planted.startMs + shift,
    posts: planted.posts.map((post) => ({ ...post, createdAtMs: post.createdAtMs + shift })),
    users: planted.users.map((user) => ({ ...user, startMs: user.startMs + shift })),
  };
  const { random } = structure;
  const authors: DemoAuthor[] = structure.authors.map((a) => ({
    id: a.id,
    username: a.username,
    topics: a.topics.map(topicName),
    popularity: a.popularity,
  }));
  const posts = structure.posts.map((post): DemoPost => {
    const { words, tags } = postWords(random, post.topic);
    return {
      id: '',
      authorIndex: post.author,
      createdAtMs: post.createdAtMs,
      text: words.join(' '),
      tags,
      language: pickLanguage(random),
      topic: topicName(post.topic),
      community: post.community,
      // Other instances' engagement grows faster than the quality that draws it (their feeds boost what is boosted).
      remoteFavourites: Math.floor(post.quality ** 1.5 * random() * 1.5),
      remoteReblogs: Math.floor(post.quality ** 1.5 * random() * 0.4),
      replies: Math.floor(post.quality * random() * 0.5),
      weight: post.quality,
    };
  });
  posts.forEach((post, i) => {
    post.id = snowflakeId(post.createdAtMs, i & 0xffff);
  });
  const users = structure.users.map((_, u) => `user${u + 1}`);
  const interactions = engage(structure, sizes, anchorMs, posts, users);
  return { authors, posts, users, interactions, truth: truthOf(structure, users) };
}

function truthOf(structure: PlantedStructure, users: readonly string[]): DemoTruth {
  const named = <T>(value: (user: PlantedUser) => T): Map<string, T> => new Map(structure.users.map((user, u) => [users[u]!, value(user)]));
  return {
    communityTopics: structure.communityTopics.map((topics) => topics.map(topicName)),
    userCommunity: named((user) => user.community),
    favouriteAuthors: named((user) => [...user.favourites].map((a) => structure.authors[a]!.username)),
    userTopics: named((user) => [...user.topics].map(topicName)),
    newcomers: new Set(structure.users.flatMap((user, u) => (user.newcomer ? [users[u]!] : []))),
  };
}

/** Post indices with their cumulative quality: one component of a user's mixture. */
interface Group {
  readonly posts: Int32Array;
  readonly cumulative: Float64Array;
}

function groupBy(posts: readonly PlantedPost[], key: (post: PlantedPost) => number, groups: number): Group[] {
  const members = Array.from({ length: groups }, (): number[] => []);
  posts.forEach((post, i) => members[key(post)]?.push(i));
  return members.map((list) => ({ posts: Int32Array.from(list), cumulative: cumulative(list.map((i) => posts[i]!.quality)) }));
}

const mass = (group: Group): number => group.cumulative[group.cumulative.length - 1] ?? 0;

/**
 * Each user's mixture: P(post) ∝ quality × appeal = quality × (1 + 10·[community] +
 * 3·[topic] + 15·[favourite author]), as components (everything, the community, each topic,
 * each favourite) weighed by appeal × their total quality.
 */
function mixtures(structure: PlantedStructure): Array<{ groups: Group[]; cumulative: Float64Array }> {
  const { posts } = structure;
  const all = groupBy(posts, () => 0, 1)[0]!;
  const byCommunity = groupBy(posts, (p) => p.community, structure.communityTopics.length);
  const byTopic = groupBy(posts, (p) => p.topic, SYNTHETIC_TOPICS.length);
  const byAuthor = groupBy(posts, (p) => p.author, structure.authors.length);
  return structure.users.map((user) => {
    const parts: Array<[Group, number]> = [
      [all, 1],
      [byCommunity[user.community]!, APPEAL.community],
      ...[...user.topics].map((t): [Group, number] => [byTopic[t]!, APPEAL.topic]),
      ...[...user.favourites].map((a): [Group, number] => [byAuthor[a]!, APPEAL.favouriteAuthor]),
    ];
    return { groups: parts.map(([g]) => g), cumulative: cumulative(parts.map(([g, w]) => w * mass(g))) };
  });
}

/** Exactly `sizes.interactions` interactions (fewer only when every user did everything), oldest-first ids. */
function engage(structure: PlantedStructure, sizes: DemoSizes, anchorMs: number, posts: DemoPost[], users: string[]): DemoInteraction[] {
  const { random } = structure;
  const planted = structure.posts;
  const interactions: DemoInteraction[] = [];
  const spanMs = sizes.days * DAY_MS;
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
    const from = Math.max(post.createdAtMs, Math.ceil(structure.users[u]!.startMs));
    let createdAtMs = from + Math.floor(-Math.log(1 - random()) * ATTENTION_MS);
    if (createdAtMs >= anchorMs) createdAtMs = from + Math.floor((anchorMs - from) * random());
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
  const mixture = mixtures(structure);
  /** A post the user may have seen: published from the day before the user's start on. */
  const draw = (u: number): number => {
    const { groups, cumulative: weights } = mixture[u]!;
    const earliest = structure.users[u]!.startMs - DAY_MS;
    for (let attempt = 0; attempt < REDRAWS; attempt++) {
      const group = groups[drawCumulative(random, weights)]!;
      if (group.posts.length === 0) continue;
      const p = group.posts[drawCumulative(random, group.cumulative)]!;
      if (planted[p]!.createdAtMs >= earliest) return p;
    }
    // A newcomer's appealing posts may all be older: any post of their time then.
    const first = firstAtOrAfter(planted, earliest);
    return first < planted.length ? first + randomInt(random, planted.length - first) : randomInt(random, planted.length);
  };
  const shares = structure.users.map((user) => user.activity * activeShare(user, { endMs: anchorMs, days: sizes.days }));
  const shareTotal = shares.reduce((a, b) => a + b, 0);
  // A few interactions for every user (a newcomer's short history), the rest by their activity;
  // as many are kept back for each user still to come.
  const floor = Math.min(MIN_PER_USER, Math.floor(sizes.interactions / Math.max(1, users.length)));
  const spread = sizes.interactions - floor * users.length;
  structure.users.forEach((_, u) => {
    const quota = floor + Math.round((spread * shares[u]!) / shareTotal);
    const target = Math.min(sizes.interactions - floor * (users.length - 1 - u), interactions.length + quota);
    for (let attempt = 0; interactions.length < target && attempt < quota * 3; attempt++) add(u, draw(u));
  });
  // Rounding and saturated users leave a few short: top up with posts drawn by their appeal for random users.
  const capacity = users.length * posts.length * 3;
  while (interactions.length < Math.min(sizes.interactions, capacity)) {
    const u = randomInt(random, users.length);
    add(u, draw(u));
  }
  return interactions;
}

/** The index of the first post (oldest first) made at or after `atMs`; `posts.length` when none. */
function firstAtOrAfter(posts: readonly PlantedPost[], atMs: number): number {
  let lo = 0;
  let hi = posts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (posts[mid]!.createdAtMs < atMs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
