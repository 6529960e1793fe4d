/**
 * A seeded generator of evaluation data with a known structure, in the two regimes a
 * community can be in:
 * - `feed`: posts all day (a daily rhythm), engagement within hours of posting, a little
 *   social proof (engaged posts draw more engagement);
 * - `catalogue`: items mostly older than the data, ratings spread over months, no recency.
 * Both plant the same signals: communities of users who engage with the same posts
 * (co-engagement, partly hidden from the text), favourite authors, topics with their tags
 * and words, a heavy popularity tail, real timestamps, and newcomers whose first interaction
 * comes late (users without history at a late cutoff). The output is what an import reads
 * (Mastodon statuses, interaction records), plus the planted truth for tests to check that
 * each signal recovers it. Pure: the same options give the same data, byte for byte.
 */
import { createRandom, randomInt } from '../random.js';
import type { InteractionAction } from '../schemas/interaction.schema.js';
import type { InteractionRecord, StatusRecord } from './import-format.js';
import { FILLER_WORDS, SYNTHETIC_TOPICS } from './synthetic-content.js';

export type Regime = 'feed' | 'catalogue';
export const REGIMES: readonly Regime[] = ['feed', 'catalogue'];

export interface GeneratorOptions {
  readonly regime: Regime;
  readonly seed: number;
  readonly users: number;
  readonly authors: number;
  readonly posts: number;
  readonly communities: number;
  /** The interactions span this many days, ending at `endMs`. */
  readonly days: number;
  readonly endMs: number;
  /** Mean interactions per user (heavy-tailed across users). */
  readonly interactionsPerUser: number;
  /** Share of users whose activity starts late: in the last `newcomerWindow` of the time span, before its last quarter. */
  readonly newcomerShare: number;
  readonly newcomerWindow: number;
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** A two-week community feed: 6,000 posts, 1,500 users. */
export const FEED_DEFAULTS: GeneratorOptions = {
  regime: 'feed',
  seed: 1,
  users: 1500,
  authors: 250,
  posts: 6000,
  communities: 8,
  days: 14,
  endMs: Date.UTC(2026, 2, 1),
  interactionsPerUser: 24,
  newcomerShare: 0.15,
  newcomerWindow: 0.08,
};

/** Six months of ratings over a catalogue of 2,000 items, 1,000 users. */
export const CATALOGUE_DEFAULTS: GeneratorOptions = {
  regime: 'catalogue',
  seed: 1,
  users: 1000,
  authors: 300,
  posts: 2000,
  communities: 8,
  days: 180,
  endMs: Date.UTC(2026, 2, 1),
  interactionsPerUser: 40,
  newcomerShare: 0.15,
  newcomerWindow: 0.08,
};

/** The defaults of a regime with some options replaced. */
export function generatorOptions(regime: Regime, overrides: Partial<Omit<GeneratorOptions, 'regime'>> = {}): GeneratorOptions {
  return { ...(regime === 'feed' ? FEED_DEFAULTS : CATALOGUE_DEFAULTS), ...overrides, regime };
}

/** What was planted, for tests to check what each signal recovers. */
export interface SyntheticTruth {
  /** User id -> community. */
  readonly userCommunity: ReadonlyMap<string, number>;
  /** User id -> favourite author account ids. */
  readonly favouriteAuthors: ReadonlyMap<string, readonly string[]>;
  /** Post id -> the community whose users it appeals to. */
  readonly postCommunity: ReadonlyMap<string, number>;
  /** Post id -> topic name. */
  readonly postTopic: ReadonlyMap<string, string>;
  /** Users whose first interaction comes in the last part of the time span. */
  readonly newcomers: ReadonlySet<string>;
}

export interface SyntheticData {
  readonly options: GeneratorOptions;
  /** Posts as Mastodon statuses, oldest first (ids increase with creation time). */
  readonly statuses: readonly StatusRecord[];
  /** Interactions, oldest first. */
  readonly interactions: readonly InteractionRecord[];
  readonly truth: SyntheticTruth;
}

/** How strongly each planted signal draws a user to a post (multipliers of the base appeal 1). */
const APPEAL = { community: 10, topic: 3, favouriteAuthor: 15 } as const;
/** A feed user's attention to a post halves about every 3 hours of its age (e-folding 4 h). */
const FEED_ATTENTION_MS = 4 * HOUR_MS;
/** A feed session sees the posts of the last day. */
const FEED_WINDOW_MS = DAY_MS;
/** Catalogue items were made over the three years before the ratings start, a tenth during them. */
const CATALOGUE_BACK_MS = 3 * 365 * DAY_MS;
const CATALOGUE_NEW_SHARE = 0.1;

interface Author {
  id: string;
  username: string;
  community: number;
  topics: number[];
  popularity: number;
}

interface Post {
  createdAtMs: number;
  author: number;
  topic: number;
  community: number;
  quality: number;
}

interface User {
  id: string;
  community: number;
  topics: Set<number>;
  favourites: Set<number>;
  activity: number;
  startMs: number;
  newcomer: boolean;
}

/** Generates one data set. */
export function generateSynthetic(options: GeneratorOptions): SyntheticData {
  const random = createRandom(options.seed * 2654435761 + (options.regime === 'feed' ? 1 : 2));
  const startMs = options.endMs - options.days * DAY_MS;
  const communityTopics = Array.from({ length: options.communities }, () => distinct(random, SYNTHETIC_TOPICS.length, 2));
  const authors = makeAuthors(random, options, communityTopics);
  const posts = makePosts(random, options, authors, startMs);
  const users = makeUsers(random, options, authors, communityTopics, startMs);
  const events = options.regime === 'feed' ? simulateFeed(random, users, posts, options) : simulateCatalogue(random, users, posts, options);
  return output(random, options, authors, posts, users, events);
}

function makeAuthors(random: () => number, options: GeneratorOptions, communityTopics: number[][]): Author[] {
  return Array.from({ length: options.authors }, (_, i) => {
    const community = randomInt(random, options.communities);
    const own = communityTopics[community] as number[];
    const topics = [...new Set([own[randomInt(random, own.length)] as number, randomInt(random, SYNTHETIC_TOPICS.length)])];
    return { id: String(10_000 + i), username: `author${i}`, community, topics, popularity: Math.min(20, pareto(random, 1.6)) };
  });
}

function makePosts(random: () => number, options: GeneratorOptions, authors: Author[], startMs: number): Post[] {
  const authorWeights = cumulative(authors.map((a) => a.popularity));
  const posts = Array.from({ length: options.posts }, (): Post => {
    const author = drawCumulative(random, authorWeights);
    const a = authors[author] as Author;
    const topic = a.topics[randomInt(random, a.topics.length)] as number;
    // Most posts appeal to their author's community; some to another (co-engagement the text does not show).
    const community = random() < 0.8 ? a.community : randomInt(random, options.communities);
    const quality = Math.min(50, pareto(random, 1.4)) * Math.sqrt(a.popularity);
    return { createdAtMs: postTime(random, options, startMs), author, topic, community, quality };
  });
  return posts.sort((x, y) => x.createdAtMs - y.createdAtMs);
}

function postTime(random: () => number, options: GeneratorOptions, startMs: number): number {
  if (options.regime === 'catalogue') {
    if (random() < CATALOGUE_NEW_SHARE) return Math.floor(startMs + random() * (options.endMs - startMs));
    return Math.floor(startMs - random() * CATALOGUE_BACK_MS);
  }
  return dailyRhythmTime(random, startMs, options.endMs);
}

/** A time in [from, to) drawn with a daily rhythm (quiet at night UTC, busy in the evening). */
function dailyRhythmTime(random: () => number, from: number, to: number): number {
  for (;;) {
    const t = from + random() * (to - from);
    const hour = (t % DAY_MS) / HOUR_MS;
    if (random() < 0.55 + 0.45 * Math.sin(((hour - 9) / 24) * 2 * Math.PI)) return Math.floor(t);
  }
}

function makeUsers(
  random: () => number,
  options: GeneratorOptions,
  authors: Author[],
  communityTopics: number[][],
  startMs: number,
): User[] {
  const span = options.endMs - startMs;
  const byCommunity = Array.from({ length: options.communities }, (_, c) => authors.flatMap((a, i) => (a.community === c ? [i] : [])));
  return Array.from({ length: options.users }, (_, i): User => {
    const community = randomInt(random, options.communities);
    const pool = byCommunity[community]!.length > 0 ? byCommunity[community]! : authors.map((_, j) => j);
    const weights = cumulative(pool.map((j) => (authors[j] as Author).popularity));
    const favourites = new Set(Array.from({ length: 3 }, () => pool[drawCumulative(random, weights)] as number));
    const topics = new Set([...(communityTopics[community] as number[]), randomInt(random, SYNTHETIC_TOPICS.length)]);
    const newcomer = random() < options.newcomerShare;
    const late = options.endMs - options.newcomerWindow * span;
    const userStart = newcomer ? late + random() * (options.endMs - late) * 0.75 : startMs + random() * (late - startMs) * 0.5;
    return { id: `user${i}`, community, topics, favourites, activity: Math.min(15, pareto(random, 1.8)), startMs: userStart, newcomer };
  });
}

/** One engagement, by post index. */
interface Engagement {
  user: number;
  post: number;
  atMs: number;
}

function appeal(user: User, post: Post): number {
  return (
    1 +
    (post.community === user.community ? APPEAL.community : 0) +
    (user.topics.has(post.topic) ? APPEAL.topic : 0) +
    (user.favourites.has(post.author) ? APPEAL.favouriteAuthor : 0)
  );
}

/**
 * Sessions in time order: each session sees the last day's posts and engages with a few,
 * drawn by quality × appeal × attention (decaying with the post's age) × social proof.
 */
function simulateFeed(random: () => number, users: User[], posts: Post[], options: GeneratorOptions): Engagement[] {
  const endMs = options.endMs;
  const meanActivity = users.reduce((s, u) => s + u.activity, 0) / Math.max(1, users.length);
  const perSession = 2;
  const sessions: { user: number; atMs: number }[] = [];
  users.forEach((user, u) => {
    // Sessions in proportion to the user's active time (a newcomer has had less of it).
    const count = Math.max(
      1,
      Math.round((options.interactionsPerUser * user.activity * activeShare(user, options)) / meanActivity / perSession),
    );
    for (let s = 0; s < count; s++) sessions.push({ user: u, atMs: dailyRhythmTime(random, user.startMs, endMs) });
  });
  sessions.sort((a, b) => a.atMs - b.atMs || a.user - b.user);
  const engaged = users.map(() => new Set<number>());
  const counts = new Float64Array(posts.length);
  const events: Engagement[] = [];
  let first = 0;
  let last = 0;
  for (const session of sessions) {
    while (first < posts.length && (posts[first] as Post).createdAtMs <= session.atMs - FEED_WINDOW_MS) first++;
    while (last < posts.length && (posts[last] as Post).createdAtMs <= session.atMs) last++;
    if (last <= first) continue;
    const user = users[session.user] as User;
    const weights = new Float64Array(last - first);
    let total = 0;
    for (let p = first; p < last; p++) {
      const post = posts[p] as Post;
      const w = engaged[session.user]!.has(p)
        ? 0
        : post.quality * appeal(user, post) * Math.exp(-(session.atMs - post.createdAtMs) / FEED_ATTENTION_MS) * Math.sqrt(1 + counts[p]!);
      total += w;
      weights[p - first] = total;
    }
    const picks = 1 + Math.floor(-Math.log(1 - random()) * (perSession - 1));
    for (let k = 0; k < picks && total > 0; k++) {
      const p = first + drawCumulative(random, weights);
      if (engaged[session.user]!.has(p)) continue;
      engaged[session.user]!.add(p);
      counts[p] = counts[p]! + 1;
      // Engagement comes seconds to minutes into the session.
      events.push({ user: session.user, post: p, atMs: session.atMs + Math.floor(random() * 600_000) });
    }
  }
  return events;
}

/** The user's active time over the mean active time of a user present from the first half of the span (3/4 of it). */
function activeShare(user: User, options: GeneratorOptions): number {
  return (options.endMs - user.startMs) / (0.75 * options.days * DAY_MS);
}

/** Each user rates items over their active span, drawn by quality × appeal among the items released by then. */
function simulateCatalogue(random: () => number, users: User[], posts: Post[], options: GeneratorOptions): Engagement[] {
  const meanActivity = users.reduce((s, u) => s + u.activity, 0) / Math.max(1, users.length);
  const events: Engagement[] = [];
  users.forEach((user, u) => {
    const weights = cumulative(posts.map((post) => post.quality * appeal(user, post)));
    const count = Math.max(5, Math.round((options.interactionsPerUser * user.activity * activeShare(user, options)) / meanActivity));
    const spanEnd = Math.min(options.endMs, user.startMs + (0.2 + 0.8 * random()) * (options.endMs - user.startMs));
    const times = Array.from({ length: count }, () => Math.floor(user.startMs + random() * (spanEnd - user.startMs))).sort((a, b) => a - b);
    const rated = new Set<number>();
    for (const atMs of times) {
      // A few redraws skip items rated already or not released yet (rare: most are older).
      for (let attempt = 0; attempt < 20; attempt++) {
        const p = drawCumulative(random, weights);
        if (rated.has(p) || (posts[p] as Post).createdAtMs > atMs) continue;
        rated.add(p);
        events.push({ user: u, post: p, atMs });
        break;
      }
    }
  });
  return events.sort((a, b) => a.atMs - b.atMs || a.user - b.user || a.post - b.post);
}

function output(
  random: () => number,
  options: GeneratorOptions,
  authors: Author[],
  posts: Post[],
  users: User[],
  events: Engagement[],
): SyntheticData {
  const postIds = posts.map((_, i) => String(100_000_000 + i));
  const statuses = posts.map((post, i) => statusOf(random, postIds[i] as string, post, authors[post.author] as Author));
  const sorted = [...events].sort((a, b) => a.atMs - b.atMs || a.user - b.user || a.post - b.post);
  const interactions = sorted.map((e): InteractionRecord => ({
    user_id: (users[e.user] as User).id,
    post_id: postIds[e.post] as string,
    action: actionOf(random),
    created_at: new Date(e.atMs).toISOString(),
  }));
  const truth: SyntheticTruth = {
    userCommunity: new Map(users.map((u) => [u.id, u.community])),
    favouriteAuthors: new Map(users.map((u) => [u.id, [...u.favourites].map((a) => (authors[a] as Author).id)])),
    postCommunity: new Map(posts.map((p, i) => [postIds[i] as string, p.community])),
    postTopic: new Map(posts.map((p, i) => [postIds[i] as string, (SYNTHETIC_TOPICS[p.topic] as { name: string }).name])),
    newcomers: new Set(users.filter((u) => u.newcomer).map((u) => u.id)),
  };
  return { options, statuses, interactions, truth };
}

function actionOf(random: () => number): InteractionAction {
  const u = random();
  return u < 0.8 ? 'favorite' : u < 0.93 ? 'reblog' : 'bookmark';
}

function statusOf(random: () => number, id: string, post: Post, author: Author): StatusRecord {
  const topic = SYNTHETIC_TOPICS[post.topic]!;
  const words = [
    ...Array.from({ length: 3 + randomInt(random, 4) }, () => topic.words[randomInt(random, topic.words.length)] as string),
    ...Array.from({ length: 2 + randomInt(random, 3) }, () => FILLER_WORDS[randomInt(random, FILLER_WORDS.length)] as string),
  ];
  shuffle(random, words);
  const tags = [...new Set([topic.tags[0] as string, topic.tags[randomInt(random, topic.tags.length)] as string])];
  const base = 'https://synthetic.example';
  const hashtags = tags.map((t) => `<a href="${base}/tags/${t}" class="mention hashtag" rel="tag">#<span>${t}</span></a>`).join(' ');
  const createdAt = new Date(post.createdAtMs).toISOString();
  return {
    id,
    created_at: createdAt,
    uri: `${base}/users/${author.username}/statuses/${id}`,
    url: `${base}/@${author.username}/${id}`,
    content: `<p>${words.join(' ')} ${hashtags}</p>`,
    visibility: 'public',
    sensitive: false,
    spoiler_text: '',
    language: 'en',
    favourites_count: 0,
    reblogs_count: 0,
    replies_count: 0,
    tags: tags.map((name) => ({ name, url: `${base}/tags/${name}` })),
    account: {
      id: author.id,
      username: author.username,
      acct: author.username,
      display_name: `Author ${author.username.slice(6)}`,
      url: `${base}/@${author.username}`,
      created_at: new Date(Date.UTC(2024, 0, 1)).toISOString(),
      discoverable: true,
      indexable: true,
      note: '',
    },
  };
}

/** Pareto-distributed value ≥ 1 with tail index `alpha` (smaller: heavier tail). */
function pareto(random: () => number, alpha: number): number {
  return Math.pow(1 - random(), -1 / alpha);
}

function distinct(random: () => number, n: number, k: number): number[] {
  const out = new Set<number>();
  while (out.size < Math.min(k, n)) out.add(randomInt(random, n));
  return [...out];
}

function cumulative(weights: readonly number[]): Float64Array {
  const out = new Float64Array(weights.length);
  let total = 0;
  weights.forEach((w, i) => (out[i] = total += w));
  return out;
}

/** Index drawn with probability proportional to its weight, from cumulative weights (binary search). */
function drawCumulative(random: () => number, cumulativeWeights: Float64Array): number {
  const total = cumulativeWeights[cumulativeWeights.length - 1] ?? 0;
  const target = random() * total;
  let lo = 0;
  let hi = cumulativeWeights.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((cumulativeWeights[mid] as number) > target) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function shuffle<T>(random: () => number, xs: T[]): void {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = randomInt(random, i + 1);
    [xs[i], xs[j]] = [xs[j] as T, xs[i] as T];
  }
}
