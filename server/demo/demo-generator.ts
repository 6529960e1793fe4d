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
    post.id = ((BigInt(post.createdAtMs) << 16n) | BigInt(i & 0xffff)).toString();
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
  const usedIds = new Set<string>();
  const done = users.map(() => new Set<string>());
  const add = (u: number, postIndex: number): void => {
    const roll = random();
    const action = roll < 0.7 ? 'favorite' : roll < 0.85 ? 'reblog' : 'bookmark';
    const key = `${postIndex}:${action}`;
    const seen = done[u] as Set<string>;
    if (seen.has(key)) return;
    seen.add(key);
    const post = posts[postIndex] as DemoPost;
    const createdAtMs = post.createdAtMs + Math.floor((anchorMs - post.createdAtMs) * random() * random());
    let idValue = (BigInt(createdAtMs) << 16n) | BigInt(interactions.length & 0xffff);
    while (usedIds.has(idValue.toString())) idValue += 1n;
    usedIds.add(idValue.toString());
    interactions.push({ id: idValue.toString(), userId: users[u] as string, postIndex, action, createdAtMs });
  };
  users.forEach((_, u) => {
    const quota = Math.round((sizes.interactions * (activity[u] ?? 1)) / activityTotal);
    const interests = [pick(random, TOPIC_NAMES), pick(random, TOPIC_NAMES)];
    const target = Math.min(sizes.interactions, interactions.length + quota);
    for (let attempt = 0; interactions.length < target && attempt < quota * 3; attempt++) {
      const topic = topicCumulative.get(pick(random, interests));
      add(u, random() < 0.75 && topic ? (topic.idx[drawWeighted(random, topic.cum)] ?? 0) : drawWeighted(random, globalCumulative));
    }
  });
  // Rounding and saturated users leave a few short: top up with popular posts for random users.
  const capacity = users.length * posts.length * 3;
  while (interactions.length < Math.min(sizes.interactions, capacity))
    add(randomInt(random, users.length), drawWeighted(random, globalCumulative));
  return { authors, posts, users, interactions };
}
