/**
 * The planted structure of generated data, the one source of it for the evaluation's
 * synthetic feed and catalogue (./generate.ts) and the demo data set
 * (server/demo/demo-generator.ts): communities, each with two topics; authors, each in a
 * community, with a topic of it and one of their own and a heavy-tailed popularity; posts,
 * each by an author, about one of the author's topics, appealing mostly to the author's
 * community (some to another: co-engagement the text does not show), with a heavy-tailed
 * quality; users, each in a community, with its topics and one more, three favourite authors
 * drawn by popularity among the community's, a heavy-tailed activity, and a start (newcomers
 * start late). How users engage with posts is each generator's own; what draws them is
 * `appeal` × quality. Pure: the same options and random source give the same structure.
 */
import { createRandom, randomInt } from '../random.js';
import { FILLER_WORDS, SYNTHETIC_TOPICS } from './synthetic-content.js';

export type Regime = 'feed' | 'catalogue';

/** What the structure depends on. */
export interface StructureOptions {
  readonly regime: Regime;
  readonly seed: number;
  readonly users: number;
  readonly authors: number;
  readonly posts: number;
  readonly communities: number;
  /** The interactions span this many days, ending at `endMs`. */
  readonly days: number;
  readonly endMs: number;
  /** Share of users whose activity starts late: in the last `newcomerWindow` of the time span, before its last quarter. */
  readonly newcomerShare: number;
  readonly newcomerWindow: number;
}

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/** How strongly each planted signal draws a user to a post (multipliers of the base appeal 1). */
export const APPEAL = { community: 10, topic: 3, favouriteAuthor: 15 } as const;
/** Catalogue items were made over the three years before the ratings start, a tenth during them. */
const CATALOGUE_BACK_MS = 3 * 365 * DAY_MS;
const CATALOGUE_NEW_SHARE = 0.1;

export interface PlantedAuthor {
  readonly id: string;
  readonly username: string;
  readonly community: number;
  /** Indices into SYNTHETIC_TOPICS. */
  readonly topics: readonly number[];
  readonly popularity: number;
}

export interface PlantedPost {
  readonly createdAtMs: number;
  readonly author: number;
  /** Index into SYNTHETIC_TOPICS. */
  readonly topic: number;
  /** The community whose users it appeals to. */
  readonly community: number;
  readonly quality: number;
}

export interface PlantedUser {
  /** `user0`, `user1`, … (a generator may name them otherwise). */
  readonly id: string;
  readonly community: number;
  /** Indices into SYNTHETIC_TOPICS. */
  readonly topics: ReadonlySet<number>;
  /** Indices of favourite authors. */
  readonly favourites: ReadonlySet<number>;
  readonly activity: number;
  /** When the user's activity starts. */
  readonly startMs: number;
  readonly newcomer: boolean;
}

export interface PlantedStructure {
  /** The random source, to go on drawing from after the structure (same options, same draws). */
  readonly random: () => number;
  readonly startMs: number;
  /** Community -> its two topics (indices into SYNTHETIC_TOPICS). */
  readonly communityTopics: readonly (readonly number[])[];
  readonly authors: readonly PlantedAuthor[];
  /** Oldest first. */
  readonly posts: readonly PlantedPost[];
  readonly users: readonly PlantedUser[];
}

/** Plants the structure of one data set. */
export function plantStructure(options: StructureOptions): PlantedStructure {
  const random = createRandom(options.seed * 2654435761 + (options.regime === 'feed' ? 1 : 2));
  const startMs = options.endMs - options.days * DAY_MS;
  const communityTopics = Array.from({ length: options.communities }, () => distinct(random, SYNTHETIC_TOPICS.length, 2));
  const authors = makeAuthors(random, options, communityTopics);
  const posts = makePosts(random, options, authors, startMs);
  const users = makeUsers(random, options, authors, communityTopics, startMs);
  return { random, startMs, communityTopics, authors, posts, users };
}

/** 1 + what the post's community, topic and author add for this user (APPEAL). */
export function appeal(user: PlantedUser, post: PlantedPost): number {
  return (
    1 +
    (post.community === user.community ? APPEAL.community : 0) +
    (user.topics.has(post.topic) ? APPEAL.topic : 0) +
    (user.favourites.has(post.author) ? APPEAL.favouriteAuthor : 0)
  );
}

/** The user's active time over the mean active time of a user present from the first half of the span (3/4 of it). */
export function activeShare(user: PlantedUser, options: Pick<StructureOptions, 'endMs' | 'days'>): number {
  return (options.endMs - user.startMs) / (0.75 * options.days * DAY_MS);
}

/** A post's words (its topic's and filler, shuffled) and its one or two tags of the topic. */
export function postWords(random: () => number, topicIndex: number): { words: string[]; tags: string[] } {
  const topic = SYNTHETIC_TOPICS[topicIndex]!;
  const words = [
    ...Array.from({ length: 3 + randomInt(random, 4) }, () => topic.words[randomInt(random, topic.words.length)] as string),
    ...Array.from({ length: 2 + randomInt(random, 3) }, () => FILLER_WORDS[randomInt(random, FILLER_WORDS.length)] as string),
  ];
  shuffle(random, words);
  const tags = [...new Set([topic.tags[0] as string, topic.tags[randomInt(random, topic.tags.length)] as string])];
  return { words, tags };
}

/** A time in [from, to) drawn with a daily rhythm (quiet at night UTC, busy in the evening). */
export function dailyRhythmTime(random: () => number, from: number, to: number): number {
  for (;;) {
    const t = from + random() * (to - from);
    const hour = (t % DAY_MS) / HOUR_MS;
    if (random() < 0.55 + 0.45 * Math.sin(((hour - 9) / 24) * 2 * Math.PI)) return Math.floor(t);
  }
}

function makeAuthors(random: () => number, options: StructureOptions, communityTopics: number[][]): PlantedAuthor[] {
  return Array.from({ length: options.authors }, (_, i) => {
    const community = randomInt(random, options.communities);
    const own = communityTopics[community] as number[];
    const topics = [...new Set([own[randomInt(random, own.length)] as number, randomInt(random, SYNTHETIC_TOPICS.length)])];
    return { id: String(10_000 + i), username: `author${i}`, community, topics, popularity: Math.min(20, pareto(random, 1.6)) };
  });
}

function makePosts(random: () => number, options: StructureOptions, authors: PlantedAuthor[], startMs: number): PlantedPost[] {
  const authorWeights = cumulative(authors.map((a) => a.popularity));
  const posts = Array.from({ length: options.posts }, (): PlantedPost => {
    const author = drawCumulative(random, authorWeights);
    const a = authors[author] as PlantedAuthor;
    const topic = a.topics[randomInt(random, a.topics.length)] as number;
    // Most posts appeal to their author's community; some to another (co-engagement the text does not show).
    const community = random() < 0.8 ? a.community : randomInt(random, options.communities);
    const quality = Math.min(50, pareto(random, 1.4)) * Math.sqrt(a.popularity);
    return { createdAtMs: postTime(random, options, startMs), author, topic, community, quality };
  });
  return posts.sort((x, y) => x.createdAtMs - y.createdAtMs);
}

function postTime(random: () => number, options: StructureOptions, startMs: number): number {
  if (options.regime === 'catalogue') {
    if (random() < CATALOGUE_NEW_SHARE) return Math.floor(startMs + random() * (options.endMs - startMs));
    return Math.floor(startMs - random() * CATALOGUE_BACK_MS);
  }
  return dailyRhythmTime(random, startMs, options.endMs);
}

function makeUsers(
  random: () => number,
  options: StructureOptions,
  authors: PlantedAuthor[],
  communityTopics: number[][],
  startMs: number,
): PlantedUser[] {
  const span = options.endMs - startMs;
  // Each community's authors (all authors for one without any), with their cumulative popularity.
  const pools = Array.from({ length: options.communities }, (_, c) => {
    const own = authors.flatMap((a, i) => (a.community === c ? [i] : []));
    const pool = own.length > 0 ? own : authors.map((_, j) => j);
    return { pool, weights: cumulative(pool.map((j) => (authors[j] as PlantedAuthor).popularity)) };
  });
  return Array.from({ length: options.users }, (_, i): PlantedUser => {
    const community = randomInt(random, options.communities);
    const { pool, weights } = pools[community]!;
    const favourites = new Set(Array.from({ length: 3 }, () => pool[drawCumulative(random, weights)] as number));
    const topics = new Set([...(communityTopics[community] as number[]), randomInt(random, SYNTHETIC_TOPICS.length)]);
    const newcomer = random() < options.newcomerShare;
    const late = options.endMs - options.newcomerWindow * span;
    const userStart = newcomer ? late + random() * (options.endMs - late) * 0.75 : startMs + random() * (late - startMs) * 0.5;
    return { id: `user${i}`, community, topics, favourites, activity: Math.min(15, pareto(random, 1.8)), startMs: userStart, newcomer };
  });
}

/** Pareto-distributed value ≥ 1 with tail index `alpha` (smaller: heavier tail). */
export function pareto(random: () => number, alpha: number): number {
  return Math.pow(1 - random(), -1 / alpha);
}

function distinct(random: () => number, n: number, k: number): number[] {
  const out = new Set<number>();
  while (out.size < Math.min(k, n)) out.add(randomInt(random, n));
  return [...out];
}

/** The running sums of `weights`, for drawCumulative. */
export function cumulative(weights: readonly number[]): Float64Array {
  const out = new Float64Array(weights.length);
  let total = 0;
  weights.forEach((w, i) => (out[i] = total += w));
  return out;
}

/** Index drawn with probability proportional to its weight, from cumulative weights (binary search). */
export function drawCumulative(random: () => number, cumulativeWeights: Float64Array): number {
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
