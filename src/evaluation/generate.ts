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
import type { InteractionAction } from '../schemas/interaction.schema.js';
import type { InteractionRecord, StatusRecord } from './import-format.js';
import { SYNTHETIC_TOPICS } from './synthetic-content.js';
import {
  activeShare,
  appeal,
  cumulative,
  dailyRhythmTime,
  drawCumulative,
  HOUR_MS,
  plantStructure,
  postWords,
  type PlantedAuthor as Author,
  type PlantedPost as Post,
  type PlantedUser as User,
  type Regime,
  type StructureOptions,
} from './synthetic-structure.js';

export type { Regime } from './synthetic-structure.js';
export const REGIMES: readonly Regime[] = ['feed', 'catalogue'];

export interface GeneratorOptions extends StructureOptions {
  /** Mean interactions per user (heavy-tailed across users). */
  readonly interactionsPerUser: number;
  /**
   * How strongly the planted personal signals (community, topics, favourite authors: APPEAL)
   * draw a user beyond an item's quality: a post's draw is quality × (1 + personalAppeal ×
   * (appeal − 1)). 1 (default): as planted, where popularity ranks far below EASE; lower, and
   * popularity leads, as in public ratings data (POPULAR_CATALOGUE).
   */
  readonly personalAppeal?: number;
  /**
   * A feed user's attention to a post fades e-fold every this many hours of its age (default
   * FEED_ATTENTION_HOURS, 4: favourites a median ~3.5 h after the post).
   */
  readonly feedAttentionHours?: number;
  /** A feed session sees the posts of this many hours (default FEED_WINDOW_HOURS, 24). */
  readonly feedWindowHours?: number;
}

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

/**
 * A catalogue whose popularity head is strong, closer to public ratings data (MovieLens-like,
 * where plain popularity ranks within about 10% of EASE): the personal signals draw
 * about a third as much as in CATALOGUE_DEFAULTS (`recsvc eval --synthetic catalogue-popular`:
 * popularity 3–8% below EASE and item kNN on data seeds 1 and 2).
 */
export const POPULAR_CATALOGUE: Partial<GeneratorOptions> = { personalAppeal: 0.35 };

/**
 * A feed engaged with over days (a forum's pace): attention fading e-fold in a day, sessions
 * seeing five days of posts, over 45 days (favourites a median ~24 h after the post).
 */
export const SLOW_FEED: Partial<GeneratorOptions> = { feedAttentionHours: 24, feedWindowHours: 120, days: 45 };

/** A feed engaged with within the hour: attention fading e-fold in an hour, sessions seeing eight hours of posts. */
export const FAST_FEED: Partial<GeneratorOptions> = { feedAttentionHours: 1, feedWindowHours: 8 };

/**
 * The synthetic data sets `recsvc eval --synthetic` names: the two regimes, the catalogue with a
 * strong popularity head, and feeds whose attention fades slower and faster than the feed's.
 */
export const SYNTHETIC_KINDS = ['feed', 'catalogue', 'catalogue-popular', 'feed-slow', 'feed-fast'] as const;
export type SyntheticKind = (typeof SYNTHETIC_KINDS)[number];

const KIND_OPTIONS: Record<SyntheticKind, { regime: Regime; options: Partial<GeneratorOptions> }> = {
  feed: { regime: 'feed', options: {} },
  catalogue: { regime: 'catalogue', options: {} },
  'catalogue-popular': { regime: 'catalogue', options: POPULAR_CATALOGUE },
  'feed-slow': { regime: 'feed', options: SLOW_FEED },
  'feed-fast': { regime: 'feed', options: FAST_FEED },
};

/** The generator options of a named synthetic data set. */
export function syntheticOptions(kind: SyntheticKind, overrides: Partial<Omit<GeneratorOptions, 'regime'>> = {}): GeneratorOptions {
  const { regime, options } = KIND_OPTIONS[kind];
  return generatorOptions(regime, { ...options, ...overrides });
}

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
  /** User id -> the names of the topics the user is drawn to (the community's two and one more). */
  readonly userTopics: ReadonlyMap<string, readonly string[]>;
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

/** A feed user's attention to a post halves about every 3 hours of its age (e-folding 4 h), unless the options say otherwise. */
export const FEED_ATTENTION_HOURS = 4;
/** A feed session sees the posts of the last day, unless the options say otherwise. */
export const FEED_WINDOW_HOURS = 24;

/** Generates one data set. */
export function generateSynthetic(options: GeneratorOptions): SyntheticData {
  const { random, authors, posts, users } = plantStructure(options);
  const events = options.regime === 'feed' ? simulateFeed(random, users, posts, options) : simulateCatalogue(random, users, posts, options);
  return output(random, options, authors, posts, users, events);
}

/** One engagement, by post index. */
interface Engagement {
  user: number;
  post: number;
  atMs: number;
}

/**
 * Sessions in time order: each session sees the last day's posts (`feedWindowHours`) and engages with a few,
 * drawn by quality × appeal × attention (decaying with the post's age) × social proof.
 */
function simulateFeed(random: () => number, users: readonly User[], posts: readonly Post[], options: GeneratorOptions): Engagement[] {
  const endMs = options.endMs;
  const attentionMs = (options.feedAttentionHours ?? FEED_ATTENTION_HOURS) * HOUR_MS;
  const windowMs = (options.feedWindowHours ?? FEED_WINDOW_HOURS) * HOUR_MS;
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
    while (first < posts.length && (posts[first] as Post).createdAtMs <= session.atMs - windowMs) first++;
    while (last < posts.length && (posts[last] as Post).createdAtMs <= session.atMs) last++;
    if (last <= first) continue;
    const user = users[session.user] as User;
    const weights = new Float64Array(last - first);
    let total = 0;
    for (let p = first; p < last; p++) {
      const post = posts[p] as Post;
      const w = engaged[session.user]!.has(p)
        ? 0
        : post.quality * draw(user, post, options) * Math.exp(-(session.atMs - post.createdAtMs) / attentionMs) * Math.sqrt(1 + counts[p]!);
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

/** Each user rates items over their active span, drawn by quality × appeal among the items released by then. */
function simulateCatalogue(random: () => number, users: readonly User[], posts: readonly Post[], options: GeneratorOptions): Engagement[] {
  const meanActivity = users.reduce((s, u) => s + u.activity, 0) / Math.max(1, users.length);
  const events: Engagement[] = [];
  users.forEach((user, u) => {
    const weights = cumulative(posts.map((post) => post.quality * draw(user, post, options)));
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

/** What draws a user to a post beyond its quality: `appeal`, its personal part scaled by `personalAppeal`. */
function draw(user: User, post: Post, options: GeneratorOptions): number {
  const scale = options.personalAppeal ?? 1;
  return scale === 1 ? appeal(user, post) : 1 + scale * (appeal(user, post) - 1);
}

function output(
  random: () => number,
  options: GeneratorOptions,
  authors: readonly Author[],
  posts: readonly Post[],
  users: readonly User[],
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
    userTopics: new Map(users.map((u) => [u.id, [...u.topics].map((t) => (SYNTHETIC_TOPICS[t] as { name: string }).name)])),
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
  const { words, tags } = postWords(random, post.topic);
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
